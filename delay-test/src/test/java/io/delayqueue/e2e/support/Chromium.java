package io.delayqueue.e2e.support;

import java.nio.file.Files;
import java.nio.file.Path;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/** Debian's headless Chromium, driven through its ChromeDriver (both installed by bin/test where missing). */
public final class Chromium {
    private Chromium() {}

    /** A new headless browser with a 1360 x 1500 window; the caller quits it. */
    public static ChromeDriver start() {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(executable("chromium"));
        // the flags a root user in a closed network needs (no sandbox, no background calls to the outside)
        options.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=1360,1500");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(Path.of(executable("chromedriver")).toFile())
                .usingAnyFreePort()
                .build();
        return new ChromeDriver(service, options);
    }

    private static String executable(String name) {
        for (String dir : System.getenv("PATH").split(":")) {
            Path candidate = Path.of(dir, name);
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        throw new IllegalStateException(name + " is not on the PATH: bin/test installs Debian's chromium and"
                + " chromium-driver where they are missing");
    }
}
