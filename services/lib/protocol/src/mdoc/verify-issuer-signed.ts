import type { IssuerSigned, VerificationAssessment } from "@owf/mdoc";
import { createMdocContext } from "./mdoc-context.js";

/** One failed check of `verifyIssuerSigned`, in the library's words (category and check). */
export interface MdocCheckFailure {
  category: VerificationAssessment["category"];
  check: string;
}

/**
 * Checks an `IssuerSigned` as the library does: issuer signature, `x5chain` up to one of
 * `trustedCertificates` (DER), MSO validity at `now`, and every element's digest against the MSO.
 * Returns the failed checks (empty when all passed); never throws for a bad credential.
 */
export async function verifyIssuerSigned(
  issuerSigned: IssuerSigned,
  options: { trustedCertificates: Uint8Array[]; now?: Date },
): Promise<MdocCheckFailure[]> {
  const failures: MdocCheckFailure[] = [];
  try {
    await issuerSigned.verify(
      {
        trustedCertificates: options.trustedCertificates,
        ...(options.now ? { now: options.now } : {}),
        verificationCallback: (item) => {
          if (item.status === "FAILED") failures.push({ category: item.category, check: item.check });
        },
      },
      createMdocContext(),
    );
  } catch {
    failures.push({ category: "DOCUMENT_FORMAT", check: "the mdoc could not be checked" });
  }
  return failures;
}
