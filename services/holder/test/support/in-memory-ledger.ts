import { randomBytes } from "node:crypto";
import { ledgerV1 } from "@attesto/proto";
import { Code, ConnectError, type ConnectRouter, createClient, createRouterTransport } from "@connectrpc/connect";
import { createLedger } from "../../src/clients/ledger.js";
import type { Ledger } from "../../src/domain/ports.js";

interface StoredDid {
  document: Record<string, unknown>;
  deactivated: boolean;
}

/**
 * A double of the ledger's LedgerService (an edge of the holder): did:ledger DIDs with one Ed25519
 * JsonWebKey2020 method `#key-1`, checkpoints, and a switch that makes it unreachable.
 */
export class InMemoryLedger {
  readonly dids = new Map<string, StoredDid>();
  /** When true every call fails as an unreachable ledger does (UNAVAILABLE). */
  down = false;
  calls = 0;

  anchor(publicJwk: { kty: string; crv: string; x: string }, keyFragment = "key-1"): { did: string; keyId: string } {
    const did = `did:ledger:${randomBytes(16).toString("hex")}`;
    const keyId = `${did}#${keyFragment}`;
    this.dids.set(did, {
      deactivated: false,
      document: {
        "@context": ["https://www.w3.org/ns/did/v1"],
        id: did,
        verificationMethod: [
          {
            id: keyId,
            type: "JsonWebKey2020",
            controller: did,
            publicKeyJwk: { kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x },
          },
        ],
        authentication: [keyId],
        assertionMethod: [keyId],
      },
    });
    return { did, keyId };
  }

  publicJwkOf(did: string): { kty: string; crv: string; x: string } {
    const document = this.dids.get(did)?.document as { verificationMethod: Array<{ publicKeyJwk: never }> } | undefined;
    if (!document) throw new Error(`unknown DID ${did}`);
    return document.verificationMethod[0]!.publicKeyJwk;
  }

  private guard(): void {
    this.calls++;
    if (this.down) throw new ConnectError("connect ECONNREFUSED", Code.Unavailable);
  }

  routes = (router: ConnectRouter) => {
    router.service(ledgerV1.LedgerService, {
      createDid: (request) => {
        this.guard();
        const { did, keyId } = this.anchor(JSON.parse(request.publicJwkJson));
        return {
          did,
          keyId,
          didDocumentJson: JSON.stringify(this.dids.get(did)!.document),
          sequence: BigInt(this.dids.size),
        };
      },
      resolveDid: (request) => {
        this.guard();
        const stored = this.dids.get(request.did);
        if (!stored) throw new ConnectError("DID not found", Code.NotFound);
        return { didDocumentJson: JSON.stringify(stored.document), deactivated: stored.deactivated };
      },
      getCheckpoint: () => {
        this.guard();
        throw new ConnectError("No checkpoint yet", Code.NotFound);
      },
    });
  };

  /** The holder's ledger client over this double (the real client code, an in-memory transport). */
  client(): Ledger {
    return createLedger(createClient(ledgerV1.LedgerService, createRouterTransport(this.routes)));
  }
}
