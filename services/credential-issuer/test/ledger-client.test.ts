import { ledgerV1 } from "@attesto/proto";
import { drivenCacheInvalidations } from "@attesto/runtime/testing";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { createLedger, LEDGER_DIDS_TOPIC } from "../src/clients/ledger.js";

describe("the issuer's ledger client", () => {
  it("resolves a DID once until the ledger's DIDs change, then sees the deactivation on the very next read", async () => {
    let calls = 0;
    let deactivated = false;
    const client = createClient(
      ledgerV1.LedgerService,
      createRouterTransport((router) =>
        router.service(ledgerV1.LedgerService, {
          resolveDid: ({ did }) => {
            calls += 1;
            return { did, didDocumentJson: JSON.stringify({ id: did }), deactivated };
          },
        }),
      ),
    );
    const driven = drivenCacheInvalidations();
    const ledger = createLedger(client, driven.invalidations);
    for (let i = 0; i < 3; i += 1)
      expect(await ledger.resolveDid("did:ledger:abc")).toMatchObject({ deactivated: false });
    expect(calls).toBe(1);
    deactivated = true;
    driven.change(LEDGER_DIDS_TOPIC);
    expect(await ledger.resolveDid("did:ledger:abc")).toMatchObject({ deactivated: true });
    expect(calls).toBe(2);
  });
});
