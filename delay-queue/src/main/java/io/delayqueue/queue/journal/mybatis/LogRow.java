package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.JournalEntry;

/** A row of {@code delay_queue_job_log}: written from the record, read back by MyBatis. */
public class LogRow {
    private String jobId;
    private String event;
    private String fromStatus;
    private String toStatus;
    private long eventTime;
    private String host;
    private String worker;
    private String detail;

    public LogRow() {}

    LogRow(
            String jobId,
            JobEvent event,
            JobStatus from,
            JobStatus to,
            long eventTime,
            String host,
            String worker,
            String detail) {
        this.jobId = jobId;
        this.event = event.name();
        this.fromStatus = from == null ? null : from.name();
        this.toStatus = to.name();
        this.eventTime = eventTime;
        this.host = host;
        this.worker = worker;
        this.detail = detail == null || detail.length() <= 1024 ? detail : detail.substring(0, 1021) + "...";
    }

    JournalEntry toEntry() {
        return new JournalEntry(
                JobEvent.valueOf(event),
                fromStatus == null ? null : JobStatus.valueOf(fromStatus),
                JobStatus.valueOf(toStatus),
                eventTime,
                host,
                worker,
                detail);
    }

    public String getJobId() {
        return jobId;
    }

    public void setJobId(String jobId) {
        this.jobId = jobId;
    }

    public String getEvent() {
        return event;
    }

    public void setEvent(String event) {
        this.event = event;
    }

    public String getFromStatus() {
        return fromStatus;
    }

    public void setFromStatus(String fromStatus) {
        this.fromStatus = fromStatus;
    }

    public String getToStatus() {
        return toStatus;
    }

    public void setToStatus(String toStatus) {
        this.toStatus = toStatus;
    }

    public long getEventTime() {
        return eventTime;
    }

    public void setEventTime(long eventTime) {
        this.eventTime = eventTime;
    }

    public String getHost() {
        return host;
    }

    public void setHost(String host) {
        this.host = host;
    }

    public String getWorker() {
        return worker;
    }

    public void setWorker(String worker) {
        this.worker = worker;
    }

    public String getDetail() {
        return detail;
    }

    public void setDetail(String detail) {
        this.detail = detail;
    }
}
