export { buildApp } from "./app.js";
export * from "./config.js";
export { REPLAY_WINDOW_SECONDS, SIGNATURE_HEADER, signWebhook, verifyWebhookSignature } from "./domain/sign-webhook.js";
export { scheduler } from "./service.js";
