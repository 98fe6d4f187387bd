package org.apache.iceberg.rest;

import java.util.Map;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.rest.responses.LoadTableResponse;

/**
 * Iceberg's RESTCatalogAdapter with storage credentials added to the config of
 * every LoadTableResponse (load table, create table, register table), the
 * way a catalog that vends credentials answers (R2 Data Catalog does: its
 * load-table config carries s3.access-key-id, s3.secret-access-key,
 * s3.session-token, s3.endpoint, s3.region). An empty vend map leaves the
 * responses as they are.
 *
 * <p>It lives in Iceberg's package only because the adapter's Route type,
 * part of the handleRequest signature, is package-private there.
 */
public class VendingCatalogAdapter extends RESTCatalogAdapter {
  private final Map<String, String> vend;

  public VendingCatalogAdapter(Catalog catalog, Map<String, String> vend) {
    super(catalog);
    this.vend = Map.copyOf(vend);
  }

  @Override
  public <T extends RESTResponse> T handleRequest(
      Route route, Map<String, String> vars, Object body, Class<T> responseType) {
    T response = super.handleRequest(route, vars, body, responseType);
    if (vend.isEmpty() || !(response instanceof LoadTableResponse)) {
      return response;
    }
    LoadTableResponse load = (LoadTableResponse) response;
    LoadTableResponse vended =
        LoadTableResponse.builder()
            .withTableMetadata(load.tableMetadata())
            .addAllConfig(load.config())
            .addAllConfig(vend)
            .addAllCredentials(load.credentials())
            .build();
    return castResponse(responseType, vended);
  }
}
