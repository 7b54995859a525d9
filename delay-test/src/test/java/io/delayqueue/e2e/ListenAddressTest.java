package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.ServiceProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Safe by default: the packaged service without {@code delay.security.token} and without {@code server.address}
 * listens on the loopback address only, and says so; with the token, or with an address configured, it listens
 * there. Checked by connecting to an address of this machine that is not a loopback one (skipped on a machine
 * without one).
 */
class ListenAddressTest {
    private static final Duration START = Duration.ofMinutes(3);

    @TempDir
    Path workDir;

    @Test
    void without_a_token_or_an_address_the_service_listens_on_the_loopback_address_only() throws Exception {
        InetAddress outside = nonLoopbackAddress();
        try (ServiceProcess service = start("listen-default", List.of())) {
            assertListensOnLoopbackOnly(service, outside);
        }
    }

    @Test
    void with_a_token_the_service_listens_on_every_address() throws Exception {
        InetAddress outside = nonLoopbackAddress();
        try (ServiceProcess service = start("listen-token", List.of("--delay.security.token=listen-secret"))) {
            assertThat(service.linesContaining("listening on every address, port " + service.port()))
                    .as("the start-up line")
                    .isNotEmpty();
            assertThat(accepts(outside, service.port()))
                    .as("a connection to %s:%d", outside.getHostAddress(), service.port())
                    .isTrue();
        }
    }

    /** The token check and the listen address read the setting one way: {@code false} is no token to both. */
    @Test
    void a_token_of_false_is_no_token_and_the_service_listens_on_the_loopback_address_only() throws Exception {
        InetAddress outside = nonLoopbackAddress();
        try (ServiceProcess service = start("listen-false", List.of("--delay.security.token=False"))) {
            assertListensOnLoopbackOnly(service, outside);
            assertThat(service.linesContaining("behind delay.security.token")).isEmpty();
            Api.Response pushed = new Api(service.port())
                    .postJson("/push", java.util.Map.of("topic", "listen", "body", "no token", "delay", 60_000));
            assertThat(pushed.status()).as("a push without a token: %s", pushed).isEqualTo(200);
        }
    }

    @Test
    void a_configured_address_is_used_without_a_token() throws Exception {
        InetAddress outside = nonLoopbackAddress();
        try (ServiceProcess service = start("listen-configured", List.of("--server.address=0.0.0.0"))) {
            assertThat(service.linesContaining("listening on 0.0.0.0:" + service.port() + ", with no"))
                    .as("the start-up line")
                    .isNotEmpty();
            assertThat(accepts(outside, service.port()))
                    .as("a connection to %s:%d", outside.getHostAddress(), service.port())
                    .isTrue();
        }
    }

    /** The start-up line says the loopback address only, and {@code outside} is refused. */
    private static void assertListensOnLoopbackOnly(ServiceProcess service, InetAddress outside) {
        assertThat(service.linesContaining("listening on 127.0.0.1:" + service.port()))
                .as("the start-up line")
                .singleElement()
                .asString()
                .contains("the loopback address only")
                .contains("delay.security.token");
        assertThat(accepts(outside, service.port()))
                .as("a connection to %s:%d", outside.getHostAddress(), service.port())
                .isFalse();
    }

    private ServiceProcess start(String name, List<String> extra) {
        List<String> args = new ArrayList<>(List.of("--delay.dispatch.default=console"));
        args.addAll(extra);
        ServiceProcess service = ServiceProcess.start(name, args, ServiceProcess.newCounts(), workDir);
        service.awaitUp(START);
        return service;
    }

    /** An IPv4 address of this machine's that is up and not a loopback one; the test is skipped without one. */
    private static InetAddress nonLoopbackAddress() throws SocketException {
        Optional<InetAddress> found = NetworkInterface.networkInterfaces()
                .filter(ListenAddressTest::upAndNotLoopback)
                .flatMap(NetworkInterface::inetAddresses)
                .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress())
                .findFirst();
        assumeTrue(found.isPresent(), "this machine has no IPv4 address other than a loopback one");
        return found.get();
    }

    private static boolean upAndNotLoopback(NetworkInterface nic) {
        try {
            return nic.isUp() && !nic.isLoopback();
        } catch (SocketException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean accepts(InetAddress address, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(address, port), 2000);
            return true;
        } catch (IOException refused) {
            return false;
        }
    }
}
