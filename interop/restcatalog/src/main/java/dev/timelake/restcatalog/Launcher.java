package dev.timelake.restcatalog;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.apache.iceberg.rest.RESTUtil;
import org.apache.iceberg.rest.VendingCatalogAdapter;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.servlet.FilterHolder;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;

/**
 * The test REST catalog: what Iceberg's RESTCatalogServer main does (a
 * catalog from the CATALOG_* environment, Iceberg's RESTCatalogServlet over
 * a RESTCatalogAdapter, in Jetty), but listening on 127.0.0.1 only, plus
 * three things for the fault tests of real clients, each off unless its
 * environment variable is set:
 *
 * <ul>
 *   <li>TIMELAKE_CATALOG_TEST_TOKEN=T: every /v1/ request but the token
 *       endpoint needs "Authorization: Bearer T", else 401 with an ErrorModel
 *       body.
 *   <li>TIMELAKE_CATALOG_TEST_CLIENT=id:secret: POST /v1/oauth/tokens
 *       (client_credentials) gives T for that id and secret, and 401
 *       invalid_client otherwise. (Upstream's adapter gives a made-up token to
 *       any client without checking its secret.)
 *   <li>TIMELAKE_CATALOG_VEND_S3=1: load-table and create-table responses carry
 *       the server's own S3 settings as config (s3.access-key-id, ...), as
 *       a catalog that vends credentials does.
 * </ul>
 *
 * <p>Every CATALOG_X_Y__Z variable becomes the catalog property x.y-z (as
 * upstream's RCKUtils maps them: strip CATALOG_, "__" to "-", "_" to ".",
 * lower case). The port is CATALOG_REST_PORT (rest.port), default 8181.
 * Defaults as upstream: a JdbcCatalog over jdbc:sqlite::memory:.
 */
public final class Launcher {
  private static final String TOKEN_PATH = "/v1/oauth/tokens";

  private Launcher() {}

  static Map<String, String> environmentCatalogConfig(Map<String, String> env) {
    Map<String, String> props = new HashMap<>();
    env.forEach(
        (k, v) -> {
          if (k.startsWith("CATALOG_")) {
            String name =
                k.substring("CATALOG_".length())
                    .replace("__", "-")
                    .replace("_", ".")
                    .toLowerCase(Locale.ROOT);
            props.put(name, v);
          }
        });
    return props;
  }

  /** The S3 settings a client needs to reach the server's own warehouse. */
  static Map<String, String> vendedS3(Map<String, String> props) {
    Map<String, String> vend = new HashMap<>();
    for (String key :
        new String[] {"s3.access-key-id", "s3.secret-access-key", "s3.session-token", "s3.endpoint"}) {
      String v = props.get(key);
      if (v != null && !v.isEmpty()) {
        vend.put(key, v);
      }
    }
    String region = props.getOrDefault("client.region", props.get("s3.region"));
    if (region == null) {
      region = System.getenv("AWS_REGION");
    }
    if (region != null) {
      vend.put("s3.region", region);
      vend.put("client.region", region);
    }
    vend.put("s3.path-style-access", "true");
    return vend;
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> env = System.getenv();
    Map<String, String> props = environmentCatalogConfig(env);
    props.putIfAbsent(CatalogProperties.CATALOG_IMPL, JdbcCatalog.class.getName());
    props.putIfAbsent(CatalogProperties.URI, "jdbc:sqlite::memory:");
    props.putIfAbsent("jdbc.schema-version", "V1");
    if (props.get(CatalogProperties.WAREHOUSE_LOCATION) == null) {
      throw new IllegalArgumentException("CATALOG_WAREHOUSE is not set");
    }
    int port = Integer.parseInt(props.getOrDefault("rest.port", "8181"));

    Catalog catalog = CatalogUtil.buildIcebergCatalog("rest_backend", props, new Configuration());
    boolean vend = "1".equals(env.get("TIMELAKE_CATALOG_VEND_S3"));
    VendingCatalogAdapter adapter =
        new VendingCatalogAdapter(catalog, vend ? vendedS3(props) : Map.of());

    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(port);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
    context.addServlet(new ServletHolder(new RESTCatalogServlet(adapter)), "/*");
    String token = env.get("TIMELAKE_CATALOG_TEST_TOKEN");
    String client = env.get("TIMELAKE_CATALOG_TEST_CLIENT");
    if ((token != null && !token.isEmpty()) || (client != null && !client.isEmpty())) {
      context.addFilter(
          new FilterHolder(new AuthFilter(token, client)), "/*", EnumSet.of(DispatcherType.REQUEST));
    }
    server.setHandler(context);
    // No graceful stop on SIGTERM: the test server's state is the SQLite
    // database and the warehouse, both written through on each commit, and a
    // graceful Jetty stop costs a second or two per test group. Hadoop's own
    // shutdown hooks take ~1.4 s more, so the JVM halts as soon as it is told
    // to stop.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> Runtime.getRuntime().halt(0)));
    server.start();
    System.err.printf(
        "timelake restcatalog: listening on http://127.0.0.1:%d (warehouse %s, auth %s, vend-s3 %s)%n",
        connector.getLocalPort(),
        props.get(CatalogProperties.WAREHOUSE_LOCATION),
        token != null && !token.isEmpty() ? "bearer" : "none",
        vend);
    server.join();
  }

  /** The optional bearer-token check and the checked token endpoint. */
  static final class AuthFilter implements Filter {
    private final String token; // null: no check
    private final String clientId; // null: token endpoint left to the adapter
    private final String clientSecret;

    AuthFilter(String token, String client) {
      this.token = token == null || token.isEmpty() ? null : token;
      if (client != null && !client.isEmpty()) {
        int colon = client.indexOf(':');
        if (colon < 0) {
          throw new IllegalArgumentException("TIMELAKE_CATALOG_TEST_CLIENT is not id:secret");
        }
        this.clientId = client.substring(0, colon);
        this.clientSecret = client.substring(colon + 1);
      } else {
        this.clientId = null;
        this.clientSecret = null;
      }
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse resp, FilterChain chain)
        throws IOException, ServletException {
      HttpServletRequest request = (HttpServletRequest) req;
      HttpServletResponse response = (HttpServletResponse) resp;
      String path = request.getRequestURI();
      if (path.equals(TOKEN_PATH)) {
        if (clientId == null) {
          chain.doFilter(req, resp);
        } else {
          tokenEndpoint(request, response);
        }
        return;
      }
      if (token != null && path.startsWith("/v1/")) {
        String auth = request.getHeader("Authorization");
        if (auth == null || !auth.startsWith("Bearer ") || !same(auth.substring(7).trim(), token)) {
          String message =
              auth == null ? "Authorization header is missing" : "Not authorized: invalid bearer token";
          json(
              response,
              401,
              "{\"error\":{\"message\":\"" + message + "\",\"type\":\"NotAuthorizedException\",\"code\":401}}");
          return;
        }
      }
      chain.doFilter(req, resp);
    }

    private void tokenEndpoint(HttpServletRequest request, HttpServletResponse response)
        throws IOException {
      if (!"POST".equals(request.getMethod())) {
        json(response, 405, "{\"error\":\"invalid_request\",\"error_description\":\"POST only\"}");
        return;
      }
      String body = new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      Map<String, String> form = RESTUtil.decodeFormData(body);
      String id = form.get("client_id");
      String secret = form.get("client_secret");
      // Clients may send the credential as HTTP Basic instead of in the form.
      String basic = request.getHeader("Authorization");
      if (id == null && basic != null && basic.startsWith("Basic ")) {
        String pair =
            new String(
                java.util.Base64.getDecoder().decode(basic.substring(6).trim()), StandardCharsets.UTF_8);
        int colon = pair.indexOf(':');
        if (colon >= 0) {
          id = pair.substring(0, colon);
          secret = pair.substring(colon + 1);
        }
      }
      if (!"client_credentials".equals(form.get("grant_type"))) {
        json(
            response,
            400,
            "{\"error\":\"unsupported_grant_type\",\"error_description\":\"only client_credentials\"}");
        return;
      }
      if (id == null || secret == null || !same(id, clientId) || !same(secret, clientSecret)) {
        json(
            response,
            401,
            "{\"error\":\"invalid_client\",\"error_description\":\"unknown client or wrong secret\"}");
        return;
      }
      String issued = token != null ? token : "timelake-test-token";
      json(
          response,
          200,
          "{\"access_token\":\""
              + issued
              + "\",\"token_type\":\"bearer\","
              + "\"issued_token_type\":\"urn:ietf:params:oauth:token-type:access_token\","
              + "\"expires_in\":3600}");
    }

    private static boolean same(String a, String b) {
      return MessageDigest.isEqual(
          a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    private static void json(HttpServletResponse response, int status, String body)
        throws IOException {
      response.setStatus(status);
      response.setContentType("application/json");
      byte[] b = body.getBytes(StandardCharsets.UTF_8);
      response.setContentLength(b.length);
      response.getOutputStream().write(b);
    }
  }
}
