-- Text columns in utf8mb4, whatever the server's or the database's default character set: a body, a business
-- key or a URL in any language (emoji included) is stored as it was pushed, never refused or turned into '?'.
-- Binary collation: nothing compares these columns, and equal means byte for byte. Ids stay ascii_bin, and
-- the status and event names (ASCII words of the service) keep the default.
-- On a large journal each MODIFY rebuilds its table: apply it in a quiet hour.
-- In MySQL's executable comments: MySQL and MariaDB run them; H2 (the embedded default, which stores Java's
-- strings as they are) reads comments and has no MODIFY with a character set.
/*!50503 ALTER TABLE delay_queue_job MODIFY topic VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL */;
/*!50503 ALTER TABLE delay_queue_job MODIFY subtopic VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL */;
/*!50503 ALTER TABLE delay_queue_job MODIFY biz_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL */;
/*!50503 ALTER TABLE delay_queue_job MODIFY body MEDIUMTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL */;
/*!50503 ALTER TABLE delay_queue_job MODIFY url VARCHAR(2048) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL */;

/*!50503 ALTER TABLE delay_queue_job_log MODIFY host VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL */;
/*!50503 ALTER TABLE delay_queue_job_log MODIFY worker VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL */;
/*!50503 ALTER TABLE delay_queue_job_log MODIFY detail VARCHAR(1024) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL */;
