package io.delayqueue.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Stoplight's Spectral, the OpenAPI linter, run as a command: installed once with npm into {@code
 * ~/.cache/delay-queue/spectral-<version>} (bin/test installs Node and npm where they are missing), then reused,
 * so a run costs the lint alone.
 */
public final class Spectral {
    /** The Spectral CLI release used; a new one is installed beside the old. */
    public static final String VERSION = "6.16.3";

    private static final Path HOME =
            Path.of(System.getProperty("user.home"), ".cache", "delay-queue", "spectral-" + VERSION);

    private Spectral() {}

    /** What a lint said: the command's exit status and its output. */
    public record Result(int exitStatus, String output) {}

    /**
     * Lints {@code document} with {@code ruleset}; the exit status is not 0 when a finding is of severity error.
     */
    public static Result lint(Path document, Path ruleset) {
        Path spectral = install();
        return run(
                HOME,
                List.of(
                        spectral.toString(),
                        "lint",
                        "--ruleset",
                        ruleset.toAbsolutePath().toString(),
                        "--fail-severity",
                        "error",
                        "--format",
                        "text",
                        document.toAbsolutePath().toString()),
                120);
    }

    private static synchronized Path install() {
        Path command = HOME.resolve("node_modules").resolve(".bin").resolve("spectral");
        if (Files.isExecutable(command)) {
            return command;
        }
        try {
            Files.createDirectories(HOME);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Result npm = run(
                HOME,
                List.of(
                        "npm",
                        "install",
                        "--prefix",
                        HOME.toString(),
                        "--no-audit",
                        "--no-fund",
                        "--loglevel=error",
                        "@stoplight/spectral-cli@" + VERSION),
                600);
        if (npm.exitStatus() != 0 || !Files.isExecutable(command)) {
            throw new IllegalStateException("npm could not install Spectral " + VERSION + " (bin/test installs Node"
                    + " and npm): exit " + npm.exitStatus() + "\n" + npm.output());
        }
        return command;
    }

    private static Result run(Path directory, List<String> command, int timeoutSeconds) {
        try {
            Path log = Files.createTempFile("spectral", ".log");
            try {
                Process p = new ProcessBuilder(new ArrayList<>(command))
                        .directory(directory.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
                if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IllegalStateException(
                            String.join(" ", command) + " did not end within " + timeoutSeconds + " s");
                }
                return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
            } finally {
                Files.deleteIfExists(log);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(String.join(" ", command) + " could not be started", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
