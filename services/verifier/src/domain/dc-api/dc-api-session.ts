/**
 * What a Digital Credentials API session holds beyond its verification session (table
 * `dc_api_sessions`); field by field, who sets it and when.
 */
export interface DcApiSession {
  /** The verification session (same id). */
  sessionId: string;
  /** Set at creation: the web origins whose pages may call the wallet and post its answer (empty: any, unsigned only). */
  expectedOrigins: string[];
  /** Set at creation: whether the request was signed (`openid4vp-v1-signed`) and so carries a client_id. */
  signed: boolean;
  /** Set when a response is accepted: the origin it came from (the mdoc DC API handover hashes it). */
  origin: string | undefined;
}
