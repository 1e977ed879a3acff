import { type App, documentedOnly } from "@attesto/runtime/http";
import { z } from "zod";
import type { IssuerDependencies } from "../domain/dependencies.js";
import { notificationEndpointOf } from "../domain/issuer-identifier.js";
import { parseNotificationRequest, recordNotification } from "../domain/record-notification.js";
import {
  checkAccessTokenNotRevoked,
  readAccessToken,
  verifyAccessToken,
  verifyDpopBinding,
} from "./credential-access.js";

const zNotificationRequest = z
  .object({
    notification_id: z.string().optional().describe("The notification_id of a credential response; required"),
    event: z.string().optional().describe("credential_accepted, credential_failure or credential_deleted; required"),
    event_description: z.string().optional().describe('Printable ASCII without " or \\, at most 1000 characters'),
  })
  .loose();

/** The body is checked by parseNotificationRequest, after the access token: its errors are OID4VCI's. */
const schema = {
  summary: "Report what became of issued credentials (OpenID4VCI notification endpoint; Bearer or DPoP access token)",
  body: zNotificationRequest,
};

/**
 * POST /notification (OID4VCI 1.0 §11, this service's README), with the access token of the
 * credential response that carried the notification_id:
 * 1-4. the access checks of POST /credential                    -> 401 invalid_token, DPoP errors, 503
 * 5. parse the body                                             -> 400 invalid_notification_request
 * 6. store the event on the credentials issued with the id to the token's offer, publish the webhooks
 *                                                               -> 400 invalid_notification_id, 503
 * 204 on success.
 */
export function registerNotificationRoute(app: App, deps: IssuerDependencies): void {
  app.post(
    "/notification",
    { config: { errorShape: "oauth", answers: [204, 401, 503] }, schema, ...documentedOnly },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      const presented = readAccessToken(request);
      const claims = await verifyAccessToken(deps, presented);
      await verifyDpopBinding(deps, request, reply, presented, claims, notificationEndpointOf(deps.issuerUrl));
      await checkAccessTokenNotRevoked(deps, presented, claims);
      await recordNotification(deps, claims, parseNotificationRequest(request.body));
      return reply.code(204).send();
    },
  );
}
