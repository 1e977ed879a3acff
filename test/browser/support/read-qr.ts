import jsQRModule from "jsqr";
import { PNG } from "pngjs";

// jsqr is a CommonJS bundle whose typings declare an ES default export: under Node's interop the
// default import is the function itself, TypeScript sees the module object; take whichever holds it.
type Decode = typeof jsQRModule.default;
const jsQR = ((jsQRModule as unknown as { default?: Decode }).default ?? jsQRModule) as Decode;

/**
 * The text of the QR code in a PNG screenshot, read by an independent decoder (jsQR over pixels
 * decoded by pngjs), or undefined when no QR code is found.
 */
export function readQrCode(png: Buffer): string | undefined {
  const image = PNG.sync.read(png);
  const found = jsQR(
    new Uint8ClampedArray(image.data.buffer, image.data.byteOffset, image.data.length),
    image.width,
    image.height,
  );
  return found?.data;
}
