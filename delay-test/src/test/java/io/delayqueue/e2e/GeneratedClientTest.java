package io.delayqueue.e2e;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.JsonTree;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The API description generates a working client: openapi-generator (its command line, copied into target/tools by
 * the build) makes a Java client from the running service's {@code /v3/api-docs} (the {@code java} generator on
 * java.net.http, whose only libraries are Jackson's), the test compiles it with the JDK's compiler against the test
 * classpath, loads it, and calls the service through it: a push and a look-up answered as the typed models the
 * description names, a reservation with and without count, a finish, and a 404 as the client's exception with its
 * status.
 */
@ServiceTest(properties = "delay.dispatch.topics[client.pull]=pull")
class GeneratedClientTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("genclient");
    private static final Path GENERATOR = Path.of("target", "tools", "openapi-generator-cli.jar");
    private static final String PACKAGE = "io.delayqueue.generated";

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    @Test
    void a_client_generated_from_the_description_pushes_looks_up_and_reserves_jobs_as_typed_models() throws Exception {
        Path dir = Path.of("target", "generated-client");
        deleteRecursively(dir);
        Files.createDirectories(dir);
        Path document = dir.resolve("openapi.json");
        Files.writeString(document, new Api(port).get("/v3/api-docs").raw(), UTF_8);

        generate(document, dir.resolve("source"));
        Path classes = compile(dir.resolve("source").resolve("src/main/java"), dir.resolve("classes"));

        try (URLClassLoader loader = new URLClassLoader(
                new URL[] {classes.toUri().toURL()}, getClass().getClassLoader())) {
            Class<?> clientType = loader.loadClass(PACKAGE + ".ApiClient");
            Object client = clientType.getConstructor().newInstance();
            call(client, "updateBaseUri", "http://127.0.0.1:" + port);
            Object jobs = loader.loadClass(PACKAGE + ".api.JobsApi")
                    .getConstructor(clientType)
                    .newInstance(client);

            Object far = loader.loadClass(PACKAGE + ".model.PushRequest")
                    .getConstructor()
                    .newInstance();
            call(far, "topic", "client.pull");
            call(far, "body", "{\"orderId\":7}");
            call(far, "delay", 600_000L);
            Object pushed = call(jobs, "pushJob", far);
            assertThat(pushed.getClass().getSimpleName()).isEqualTo("ApiResponseString");
            assertThat(call(pushed, "getCode")).isEqualTo(200);
            String id = (String) call(pushed, "getData");
            assertThat(id).isNotBlank();

            Object lookup = call(call(jobs, "getJob", id), "getData");
            assertThat(lookup.getClass().getSimpleName()).isEqualTo("JobLookup");
            Object job = call(lookup, "getJob");
            assertThat(job.getClass().getSimpleName()).isEqualTo("Job");
            assertThat(call(job, "getId")).isEqualTo(id);
            assertThat(call(job, "getTopic")).isEqualTo("client.pull");
            assertThat(call(job, "getBody")).isEqualTo("{\"orderId\":7}");
            assertThat(call(job, "getStatus")).hasToString("DELAY");
            assertThat(call(lookup, "getTier")).hasToString("redis");
            List<?> history = (List<?>) call(lookup, "getHistory");
            assertThat(history).isNotEmpty();
            assertThat(call(history.get(0), "getEvent")).hasToString("CREATED");

            Object now = loader.loadClass(PACKAGE + ".model.PushRequest")
                    .getConstructor()
                    .newInstance();
            call(now, "topic", "client.pull");
            call(now, "body", "due now");
            String due = (String) call(call(jobs, "pushJob", now), "getData");
            Object reserve = call(jobs, "reserveJobs", "client.pull", 10_000L, null);
            assertThat(reserve.getClass().getSimpleName()).isEqualTo("ReserveAnswer");
            JsonNode one = ((JsonTree) call(reserve, "getData")).tree();
            assertThat(one.path("id").asText()).isEqualTo(due);
            assertThat(one.path("status").asText()).isEqualTo("RESERVED");
            JsonNode none = ((JsonTree) call(call(jobs, "reserveJobs", "client.pull", 0L, 10), "getData")).tree();
            assertThat(none.isArray()).as("with count: a list, %s", none).isTrue();
            assertThat(none).isEmpty();
            assertThat(call(call(jobs, "finishJob", due, null), "getMessage")).isEqualTo("finished");

            assertThatThrownBy(() -> call(jobs, "getJob", "no-such-job"))
                    .isInstanceOf(WrappedException.class)
                    .cause()
                    .satisfies(e -> assertThat(e.getClass().getSimpleName()).isEqualTo("ApiException"))
                    .satisfies(e -> assertThat(call(e, "getCode")).isEqualTo(404));
        }
    }

    /** Runs openapi-generator's command line in a process of its own (its libraries stay off the test classpath). */
    private static void generate(Path document, Path output) throws IOException, InterruptedException {
        assertThat(GENERATOR).as("the build copies openapi-generator here").isRegularFile();
        Path log = output.resolveSibling("generator.log");
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                GENERATOR.toString(),
                "generate",
                "--input-spec",
                document.toString(),
                "--generator-name",
                "java",
                "--library",
                "native",
                "--output",
                output.toString(),
                "--invoker-package",
                PACKAGE,
                "--api-package",
                PACKAGE + ".api",
                "--model-package",
                PACKAGE + ".model",
                // ReservedJobs is a oneOf of Job and a list of Job: the java generator's native library writes
                // List<Job>.class for the list, which does not compile (7.25.0; OpenAPITools/openapi-generator#17745,
                // fixed
                // for okhttp-gson only), so it is read as a JSON tree
                "--schema-mappings",
                "ReservedJobs=" + JsonTree.class.getName(),
                "--additional-properties",
                "useJakartaEe=true,openApiNullable=false,hideGenerationTimestamp=true",
                "--global-property",
                "apiTests=false,modelTests=false,apiDocs=false,modelDocs=false");
        Process generator = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        if (!generator.waitFor(120, TimeUnit.SECONDS)) {
            generator.destroyForcibly();
            throw new AssertionError("openapi-generator did not finish in 120 s; see " + log);
        }
        assertThat(generator.exitValue())
                .as("openapi-generator's exit status:%n%s", Files.readString(log))
                .isZero();
    }

    /** Compiles every source under {@code sources} with the test classpath into {@code classes}. */
    private static Path compile(Path sources, Path classes) throws IOException {
        Files.createDirectories(classes);
        List<File> files;
        try (Stream<Path> walk = Files.walk(sources)) {
            files = walk.filter(p -> p.toString().endsWith(".java"))
                    .map(Path::toFile)
                    .toList();
        }
        assertThat(files).as("generated sources").isNotEmpty();
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        StringWriter output = new StringWriter();
        boolean compiled;
        try (StandardJavaFileManager fileManager = compiler.getStandardFileManager(diagnostics, null, UTF_8)) {
            List<String> options = new ArrayList<>(List.of(
                    "--release",
                    "17",
                    "-proc:none",
                    "-nowarn",
                    "-encoding",
                    "UTF-8",
                    "-classpath",
                    System.getProperty("java.class.path"),
                    "-d",
                    classes.toString()));
            compiled = compiler.getTask(
                            output,
                            fileManager,
                            diagnostics,
                            options,
                            null,
                            fileManager.getJavaFileObjectsFromFiles(files))
                    .call();
        }
        assertThat(compiled)
                .as("the generated client compiles:%n%s%n%s", output, diagnostics.getDiagnostics())
                .isTrue();
        return classes;
    }

    /** Calls the public method {@code name} of {@code target} that takes {@code args.length} arguments. */
    private static Object call(Object target, String name, Object... args) {
        for (Method m : target.getClass().getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == args.length) {
                try {
                    return m.invoke(target, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause() instanceof RuntimeException r ? r : new WrappedException(e.getCause());
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        throw new AssertionError(
                target.getClass().getName() + " has no method " + name + " of " + args.length + " arguments");
    }

    /** A checked exception of the generated client (its ApiException), as the cause. */
    private static final class WrappedException extends RuntimeException {
        WrappedException(Throwable cause) {
            super(cause);
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
