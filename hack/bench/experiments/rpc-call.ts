import { schemaV1 } from "@attesto/proto";
import { createRpcClient, enableInProcessRpc, startInternalServer } from "@attesto/runtime/rpc";
import { testCredentialSigner, testCredentialVerifier } from "@attesto/runtime/testing";
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import pino from "pino";
import { Registry } from "prom-client";

/**
 * CPU per internal unary call through the real stack: createRpcClient (trace context, retries,
 * service credential, lost callee, deadline) against startInternalServer (metrics, trace context,
 * credential verification, caller policy, error mapping), with a handler that does nothing, so
 * what is measured is the RPC plumbing alone. `in-process` takes the all-in-one's in-process route,
 * `h2c` the network one (this process is client and server, so its CPU is both sides'). Calls run
 * `concurrency` at a time. Run it in two trees to compare them:
 *
 *   npm run bench:experiment -- rpc-call in-process|h2c [calls] [concurrency]
 *
 * Profile with `node --cpu-prof --import tsx hack/bench/experiments/rpc-call.ts ...`.
 */
const mode = process.argv[2] === "h2c" ? "h2c" : "in-process";
const calls = Number(process.argv[3] ?? 20_000);
const concurrency = Number(process.argv[4] ?? 1);

function routes(router: ConnectRouter) {
  router.service(schemaV1.SchemaService, {
    getCredentialType: (req) => ({
      credentialType: { type: req.selector.case === "typeVersion" ? req.selector.value.type : "", version: "v1" },
    }),
  });
}

const server = await startInternalServer({
  service: "schema-registry",
  version: "bench",
  host: "127.0.0.1",
  port: 0,
  routes,
  verifier: testCredentialVerifier("schema-registry"),
  metrics: new Registry(),
  logger: pino({ level: "silent" }),
});
enableInProcessRpc(mode === "in-process");
const client = createRpcClient(schemaV1.SchemaService, {
  baseUrl: server.url,
  audience: "schema-registry",
  signer: testCredentialSigner("credential-issuer"),
  timeoutMs: 5_000,
});
const request = create(schemaV1.GetCredentialTypeRequestSchema, {
  selector: { case: "typeVersion", value: { type: "pid", version: "v1" } },
});

async function run(count: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next++ < count) {
      const res = await client.getCredentialType(request);
      if (res.credentialType?.type !== "pid") throw new Error("unexpected answer");
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

await run(Math.min(5_000, calls)); // warm-up: JIT, credential minted and verified once
const cpu = process.cpuUsage();
const started = performance.now();
await run(calls);
const used = process.cpuUsage(cpu);
const wall = performance.now() - started;
const perCall = (used.user + used.system) / calls;
console.log(
  `${mode} c=${concurrency}: ${calls} calls, ${perCall.toFixed(1)} µs CPU per call ` +
    `(user ${(used.user / calls).toFixed(1)}, system ${(used.system / calls).toFixed(1)}), ` +
    `${((wall * 1000) / calls).toFixed(1)} µs wall per call`,
);
await server.close();
process.exit(0);
