package org.apache.iceberg.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.util.Pair;

/**
 * Checks recorded requests (restcatalog/testdata/requests.json) with Apache Iceberg's own REST
 * implementation, the reference the spec's other servers follow: each request's method and path
 * must be a route of the REST catalog (RESTCatalogAdapter.Route, with the path parameters it
 * takes), and its JSON body must parse into the route's request class with Iceberg's parsers
 * (RESTObjectMapper: unknown update actions, wrong types and missing required fields fail) and
 * validate(); every member we send must survive the round trip (a member Iceberg's parser does
 * not know is reported). The token request's form must carry the client-credentials fields.
 *
 * <p>java -cp CLASSPATH org.apache.iceberg.rest.SpecCheck BASE_URI PREFIX REQUESTS.json...
 *
 * <p>Prints "== FILE", then one line per request, then "== FILE: N failed"; exits 1 if any
 * request of any file fails (one JVM checks many files: the tests' broken copies too).
 */
public class SpecCheck {
  public static void main(String[] args) throws Exception {
    ObjectMapper json = RESTObjectMapper.mapper();
    String base = args[0].replaceAll("/+$", "");
    String prefix = args[1];
    int bad = 0;
    for (int f = 2; f < args.length; f++) {
      System.out.println("== " + args[f]);
      int failed = 0;
      for (JsonNode r : json.readTree(new File(args[f]))) {
        String name = r.get("name").asText();
        String method = r.get("method").asText();
        String url = r.get("url").asText();
        List<String> problems = new ArrayList<>();
        check(json, r, method, url, base, prefix, problems);
        if (problems.isEmpty()) {
          System.out.println("ok   " + name + ": " + method + " " + url.substring(Math.min(base.length(), url.length())));
        } else {
          failed++;
          System.out.println("FAIL " + name + ": " + method + " " + url + ": " + String.join("; ", problems));
        }
      }
      System.out.println("== " + args[f] + ": " + failed + " failed");
      bad += failed;
    }
    System.exit(bad == 0 ? 0 : 1);
  }

  static void check(ObjectMapper json, JsonNode r, String method, String url, String base, String prefix, List<String> problems) {
    if (!url.startsWith(base + "/")) {
      problems.add("not under " + base);
      return;
    }
    String path = url.substring(base.length() + 1);
    String query = "";
    int q = path.indexOf('?');
    if (q >= 0) {
      query = path.substring(q + 1);
      path = path.substring(0, q);
    }
    if (!prefix.isEmpty() && path.startsWith("v1/" + prefix + "/")) {
      path = "v1/" + path.substring(("v1/" + prefix + "/").length());
    }
    Pair<RESTCatalogAdapter.Route, Map<String, String>> m;
    try {
      m = RESTCatalogAdapter.Route.from(HTTPRequest.HTTPMethod.valueOf(method), path);
    } catch (RuntimeException e) {
      problems.add("route: " + e);
      return;
    }
    if (m == null) {
      problems.add("no such route in the REST spec: " + method + " " + path);
      return;
    }
    RESTCatalogAdapter.Route route = m.first();
    String ns = m.second().get("namespace");
    if (ns != null) {
      try {
        RESTUtil.decodeNamespace(ns);
      } catch (RuntimeException e) {
        problems.add("namespace " + ns + ": " + e.getMessage());
      }
    }
    if (route == RESTCatalogAdapter.Route.CONFIG && !query.isEmpty() && !query.startsWith("warehouse=")) {
      problems.add("config takes warehouse only, got " + query);
    }
    JsonNode body = r.get("body");
    if (route == RESTCatalogAdapter.Route.TOKENS) {
      Map<String, String> form = RESTUtil.decodeFormData(r.path("form").asText(""));
      for (String k : new String[] {"grant_type", "client_id", "client_secret", "scope"}) {
        if (!form.containsKey(k)) problems.add("token form lacks " + k);
      }
      if (!"client_credentials".equals(form.get("grant_type"))) problems.add("grant_type " + form.get("grant_type"));
      return;
    }
    Class<? extends RESTRequest> cls = route.requestClass();
    if (cls == null) {
      if (body != null && !body.isNull()) problems.add(route + " takes no body");
      return;
    }
    if (body == null || body.isNull()) {
      problems.add(route + " needs a " + cls.getSimpleName() + " body");
      return;
    }
    try {
      RESTRequest parsed = json.treeToValue(body, cls);
      parsed.validate();
      JsonNode back = json.valueToTree(parsed);
      lost(body, back, "$", problems);
    } catch (Exception e) {
      String msg = String.valueOf(e.getMessage());
      problems.add(cls.getSimpleName() + ": " + msg.split("\n")[0]);
    }
  }

  /** Reports members of sent that the parsed-and-written request lacks. */
  static void lost(JsonNode sent, JsonNode back, String at, List<String> problems) {
    if (sent.isObject()) {
      if (back == null || !back.isObject()) {
        problems.add(at + ": not understood");
        return;
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = sent.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        JsonNode b = back.get(e.getKey());
        if (b == null) {
          // Defaults a writer may leave out on the way back (false, empty).
          JsonNode v = e.getValue();
          if ((v.isBoolean() && !v.asBoolean()) || (v.isContainerNode() && v.size() == 0) || v.isNull()) continue;
          problems.add(at + "." + e.getKey() + ": unknown to Iceberg's parser");
          continue;
        }
        lost(e.getValue(), b, at + "." + e.getKey(), problems);
      }
    } else if (sent.isArray() && back != null && back.isArray() && sent.size() == back.size()) {
      for (int i = 0; i < sent.size(); i++) lost(sent.get(i), back.get(i), at + "[" + i + "]", problems);
    }
  }
}
