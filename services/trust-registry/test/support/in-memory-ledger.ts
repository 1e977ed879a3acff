import { randomBytes } from "node:crypto";
import { ledgerV1 } from "@attesto/proto";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";

interface StoredDid {
  document: Record<string, unknown>;
  deactivated: boolean;
}

/**
 * A test double of the ledger's DID registry (an external edge of the trust registry): did:ledger
 * DIDs whose documents list one Ed25519 JsonWebKey2020 verification method, `#key-1`.
 */
export class InMemoryLedger {
  readonly dids = new Map<string, StoredDid>();
  readonly deactivations: string[] = [];

  /** Anchors a DID for a public key, as another party would (for import tests). */
  anchor(publicJwk: { kty: string; crv: string; x: string }): { did: string; keyId: string } {
    const did = `did:ledger:${randomBytes(16).toString("hex")}`;
    const keyId = `${did}#key-1`;
    this.dids.set(did, {
      deactivated: false,
      document: {
        "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/suites/jws-2020/v1"],
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

  /** The DID's public key as anchored (what an independent verifier would resolve). */
  publicJwkOf(did: string): { kty: string; crv: string; x: string } {
    const document = this.dids.get(did)?.document as { verificationMethod: Array<{ publicKeyJwk: never }> } | undefined;
    if (!document) throw new Error(`unknown DID ${did}`);
    return document.verificationMethod[0]!.publicKeyJwk;
  }

  routes = (router: ConnectRouter) => {
    router.service(ledgerV1.LedgerService, {
      createDid: (request) => {
        const { did, keyId } = this.anchor(JSON.parse(request.publicJwkJson));
        return {
          did,
          keyId,
          didDocumentJson: JSON.stringify(this.dids.get(did)!.document),
          sequence: BigInt(this.dids.size),
        };
      },
      resolveDid: (request) => {
        const stored = this.dids.get(request.did);
        if (!stored) throw new ConnectError("DID not found", Code.NotFound);
        return { didDocumentJson: JSON.stringify(stored.document), deactivated: stored.deactivated };
      },
      deactivateDid: (request) => {
        const stored = this.dids.get(request.did);
        if (!stored) throw new ConnectError("DID not found", Code.NotFound);
        stored.deactivated = true;
        this.deactivations.push(request.did);
        return {};
      },
    });
  };
}
