import { notaryV1 } from "@attesto/proto";
import {
  Code,
  ConnectError,
  type ConnectRouter,
  createClient,
  createRouterTransport,
  type ServiceImpl,
} from "@connectrpc/connect";
import { createNotary } from "../../src/clients/notary.js";
import type { Notary } from "../../src/domain/ports.js";

/** What GetAnchorProof may answer (the generated init shape). */
type AnchorProof = Awaited<ReturnType<ServiceImpl<typeof notaryV1.NotaryService>["getAnchorProof"]>>;

/**
 * A double of the scheduler's NotaryService.GetAnchorProof (an edge of the holder): the anchors a
 * test sets, answered only to a caller naming the digest they were set for, as the scheduler does.
 */
export class InMemoryNotary {
  /** Anchors by object id, with the digest they answer to. */
  readonly anchors = new Map<string, { digest: string; proof: AnchorProof }>();
  /** GetAnchorProof calls seen. */
  calls = 0;
  /** When true every call fails as an unreachable scheduler does (UNAVAILABLE). */
  unavailable = false;

  private readonly routes = (router: ConnectRouter) => {
    router.service(notaryV1.NotaryService, {
      getAnchorProof: async ({ objectId, digest }) => {
        this.calls++;
        if (this.unavailable) throw new ConnectError("Scheduler is unavailable", Code.Unavailable);
        const anchor = this.anchors.get(objectId);
        if (!anchor || anchor.digest !== digest) throw new ConnectError("Notarization not found", Code.NotFound);
        return anchor.proof;
      },
    });
  };

  /** The holder's notary client over this double (the real client code, an in-memory transport). */
  client(): Notary {
    return createNotary(createClient(notaryV1.NotaryService, createRouterTransport(this.routes)));
  }
}
