import { type App, documentedOnly } from "@attesto/runtime/http";
import { notificationEndpointOf } from "../domain/issuer-identifier.js";
import type { IssuerDependencies } from "../domain/ports.js";
import { recordNotification } from "../domain/record-notification.js";
import {
  checkAccessTokenNotRevoked,
  readAccessToken,
  verifyAccessToken,
  verifyDpopBinding,
} from "./credential-access.js";
import { notificationRequestOf, zNotificationRequest } from "./notification-request.schema.js";

/** The body is checked by its schema after the access token (notificationRequestOf): its errors are OID4VCI's. */
const schema = {
  summary: "Report what became of issued credentials (OpenID4VCI notification endpoint; Bearer or DPoP access token)",
  body: zNotificationRequest,
};

/**
 * POST /notification (OID4VCI 1.0 §11, this service's README), with the access token of the
 * credential response that carried the notification_id:
 * 1-4. the access checks of POST /credential                    -> 401 invalid_token, DPoP errors, 503
 * 5. check the body with its schema                            -> 400 invalid_notification_request
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
      await recordNotification(deps, claims, notificationRequestOf(request.body));
      return reply.code(204).send();
    },
  );
}
