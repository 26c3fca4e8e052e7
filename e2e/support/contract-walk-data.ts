// The walk's steps for data: connector definitions, connectors, catalogs, models and syncs (see
// contract-walk.ts). Runs, records, the service endpoints and unknown paths: contract-walk-runs.ts.
import { expect } from "@playwright/test";
import { expectStatus, idOf } from "./contract-fixtures";
import type { Steps } from "./contract-walk";
import { pgConfiguration, unique } from "./data";


export const DATA_STEPS = {
  // Connector definitions
  listConnectorDefinitions: async (fx) => {
    await expectStatus(
      (await fx.admin()).GET("/api/v1/connector_definitions", { params: { query: { type: "source" } } }),
      200,
    );
  },
  getConnectorDefinition: async (fx) => {
    await expectStatus(
      (await fx.admin()).GET("/api/v1/connector_definitions/{name}", {
        params: { path: { name: "Postgresql" } },
      }),
      200,
    );
  },
  checkConnection: async (fx) => {
    await fx.tables();
    const body = await expectStatus(
      (await fx.admin()).POST("/api/v1/connector_definitions/check_connection", {
        body: { name: "Postgresql", type: "source", connection_spec: pgConfiguration() },
      }),
      200,
    );
    expect(JSON.stringify(body)).toContain("success");
  },

  // Connectors and catalogs
  listConnectors: async (fx) => {
    await fx.sourceId();
    await expectStatus(
      (await fx.admin()).GET("/api/v1/connectors", { params: { query: { type: "source" } } }),
      200,
    );
  },
  createConnector: async (fx) => {
    await fx.newConnector("source");
  },
  getConnector: async (fx) => {
    await expectStatus(
      (await fx.admin()).GET("/api/v1/connectors/{id}", { params: { path: { id: await fx.sourceId() } } }),
      200,
    );
  },
  updateConnector: async (fx) => {
    const id = await fx.newConnector("source");
    await expectStatus(
      (await fx.admin()).PUT("/api/v1/connectors/{id}", {
        params: { path: { id } },
        body: { connector: { name: unique("renamed") } },
      }),
      200,
    );
  },
  deleteConnector: async (fx) => {
    const id = await fx.newConnector("source");
    await expectStatus(
      (await fx.admin()).DELETE("/api/v1/connectors/{id}", { params: { path: { id } } }),
      204,
    );
  },
  getConnectorDependents: async (fx) => {
    await expectStatus(
      (await fx.admin()).GET("/api/v1/connectors/{id}/dependents", { params: { path: { id: await fx.newConnector("source") } } }),
      200,
    );
  },
  discoverConnector: async (fx) => {
    const id = await fx.destinationId(); // discovered with refresh=true
    await expectStatus(
      (await fx.admin()).GET("/api/v1/connectors/{id}/discover", { params: { path: { id } } }),
      200,
    );
  },
  querySource: async (fx) => {
    const id = await fx.sourceId();
    await expectStatus(
      (await fx.admin()).POST("/api/v1/connectors/{id}/query_source", {
        params: { path: { id } },
        body: { query: `SELECT id, email FROM ${fx.srcTable}`, limit: 5 },
      }),
      200,
    );
  },
  checkConnector: async (fx) => {
    const id = await fx.sourceId();
    await expectStatus(
      (await fx.admin()).POST("/api/v1/connectors/{id}/check", { params: { path: { id } } }),
      200,
    );
    await expectStatus(
      (await fx.admin()).POST("/api/v1/connectors/{id}/check", {
        params: { path: { id } },
        body: { configuration: pgConfiguration({ port: 1 }) },
      }),
      200,
    );
  },
  createCatalog: async (fx) => {
    const admin = await fx.admin();
    const connectorId = await fx.newConnector("destination");
    const streams = [
      { name: "contacts", json_schema: { type: "object", properties: { email: { type: "string" } } } },
    ];
    await expectStatus(
      admin.POST("/api/v1/catalogs", { body: { connector_id: connectorId, catalog: { streams } } }),
      200,
    );
  },
  updateCatalog: async (fx) => {
    const admin = await fx.admin();
    const connectorId = await fx.newConnector("destination");
    const streams = [
      { name: "contacts", json_schema: { type: "object", properties: { email: { type: "string" } } } },
    ];
    const id = idOf(
      await expectStatus(
        admin.POST("/api/v1/catalogs", { body: { connector_id: connectorId, catalog: { streams } } }),
        200,
      ),
    );
    await expectStatus(
      admin.PUT("/api/v1/catalogs/{id}", {
        params: { path: { id } },
        body: { connector_id: connectorId, catalog: { streams, request_rate_limit: 60 } },
      }),
      200,
    );
  },

  // Models
  listModels: async (fx) => {
    await fx.modelId();
    await expectStatus((await fx.admin()).GET("/api/v1/models"), 200);
  },
  createModel: async (fx) => {
    await fx.newModel();
  },
  getModel: async (fx) => {
    await expectStatus(
      (await fx.admin()).GET("/api/v1/models/{id}", { params: { path: { id: await fx.modelId() } } }),
      200,
    );
  },
  updateModel: async (fx) => {
    const id = await fx.newModel();
    await expectStatus(
      (await fx.admin()).PUT("/api/v1/models/{id}", {
        params: { path: { id } },
        body: { model: { description: "Renamed by the walk" } },
      }),
      200,
    );
  },
  getModelDependents: async (fx) => {
    await expectStatus((await fx.admin()).GET("/api/v1/models/{id}/dependents", { params: { path: { id: await fx.modelId() } } }), 200);
  },
  deleteModel: async (fx) => {
    const id = await fx.newModel();
    await expectStatus((await fx.admin()).DELETE("/api/v1/models/{id}", { params: { path: { id } } }), 204);
  },

  // Syncs
  listSyncs: async (fx) => {
    await fx.syncId();
    await expectStatus((await fx.admin()).GET("/api/v1/syncs"), 200);
  },
  createSync: async (fx) => {
    await fx.newSync();
  },
  getSyncConfigurations: async (fx) => {
    await expectStatus((await fx.admin()).GET("/api/v1/syncs/configurations"), 200);
  },
  getSync: async (fx) => {
    await fx.finishedRun(); // so last_run is filled in
    await expectStatus(
      (await fx.admin()).GET("/api/v1/syncs/{id}", { params: { path: { id: await fx.syncId() } } }),
      200,
    );
  },
  getSyncLive: async (fx) => {
    const admin = await fx.admin();
    // A scheduled sync has no stream: the documented 409.
    await expectStatus(admin.GET("/api/v1/syncs/{id}/live", { params: { path: { id: await fx.syncId() } } }), 409);
    await expectStatus(admin.GET("/api/v1/syncs/{id}/live", { params: { path: { id: await fx.liveSyncId() } } }), 200);
  },
  updateSync: async (fx) => {
    const id = await fx.newSync();
    await expectStatus(
      (await fx.admin()).PUT("/api/v1/syncs/{id}", {
        params: { path: { id } },
        body: { sync: { description: "Updated by the walk" } },
      }),
      200,
    );
    await expectStatus(
      (await fx.admin()).PUT("/api/v1/syncs/{id}", {
        params: { path: { id } },
        body: { sync: { stream_name: "" } },
      }),
      422,
    );
  },
  deleteSync: async (fx) => {
    const id = await fx.newSync();
    await expectStatus((await fx.admin()).DELETE("/api/v1/syncs/{id}", { params: { path: { id } } }), 204);
  },
  enableSync: async (fx) => {
    const id = await fx.newSync();
    await expectStatus(
      (await fx.admin()).PATCH("/api/v1/syncs/{id}/enable", {
        params: { path: { id } },
        body: { enable: false },
      }),
      200,
    );
    // A disabled sync cannot run: the documented 424.
    await expectStatus(
      (await fx.admin()).POST("/api/v1/schedule_syncs", { body: { schedule_sync: { sync_id: id } } }),
      424,
    );
  },
  scheduleSync: async (fx) => {
    await fx.trigger(await fx.newSync());
  },
  cancelSync: async (fx) => {
    const id = await fx.newSync(await fx.slowModelId());
    await fx.trigger(id);
    await expectStatus(
      (await fx.admin()).DELETE("/api/v1/schedule_syncs/{sync_id}", { params: { path: { sync_id: id } } }),
      200,
    );
  },
  planSync: async (fx) => {
    const id = await fx.syncId();
    const body = await expectStatus(
      (await fx.admin()).POST("/api/v1/syncs/{id}/plan", { params: { path: { id } }, body: { sample_size: 2 } }),
      200,
    );
    expect(JSON.stringify(body)).toContain("samples");
    await expectStatus((await fx.admin()).POST("/api/v1/syncs/{id}/plan", { params: { path: { id } }, body: { sample_size: 99 } }), 422);
  },
  testSync: async (fx) => {
    const id = await fx.newSync();
    await expectStatus(
      (await fx.admin()).POST("/enterprise/api/v1/syncs/{sync_id}/test", {
        params: { path: { sync_id: id } },
      }),
      200,
    );
  },
} satisfies Steps;
