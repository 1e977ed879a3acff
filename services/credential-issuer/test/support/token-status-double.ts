import { tokenStatusV1 } from "@attesto/proto";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";

/**
 * The authorization server's TokenStatusService: the jtis it revoked, the lookups it was asked,
 * and an outage switch.
 */
export class TokenStatusDouble {
  readonly revoked = new Set<string>();
  readonly lookups: string[] = [];
  available = true;

  register(router: ConnectRouter): void {
    router.service(tokenStatusV1.TokenStatusService, {
      getTokenStatus: async ({ jti }) => {
        if (!this.available) throw new ConnectError("auth server is unavailable", Code.Unavailable);
        this.lookups.push(jti);
        return { revoked: this.revoked.has(jti) };
      },
    });
  }
}
