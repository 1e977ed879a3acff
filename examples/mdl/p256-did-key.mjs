// A holder key for mdocs (their device keys are P-256): prints {"did": "did:key:zDn…", "private_key": "…"},
// the did:key of a fresh P-256 key (multicodec p256-pub 0x1200, compressed point, base58btc) and
// the key's private scalar `d`, base64url, as the holder's POST /v1/oid4vci/receive takes them.
// Usage (docs/mdoc.md): node examples/mdl/p256-did-key.mjs
import { generateKeyPairSync } from "node:crypto";

const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

function base58btc(bytes) {
  let value = BigInt(`0x${Buffer.from(bytes).toString("hex")}`);
  let text = "";
  while (value > 0n) {
    text = BASE58[Number(value % 58n)] + text;
    value /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    text = `1${text}`;
  }
  return text;
}

const jwk = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "jwk" });
const x = Buffer.from(jwk.x, "base64url");
const y = Buffer.from(jwk.y, "base64url");
const compressed = Buffer.concat([Buffer.from([y[y.length - 1] & 1 ? 0x03 : 0x02]), x]);
const did = `did:key:z${base58btc(Buffer.concat([Buffer.from([0x80, 0x24]), compressed]))}`;
console.log(JSON.stringify({ did, private_key: jwk.d }));
