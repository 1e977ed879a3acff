import type { CheckOutcome, VerificationCheck, VerificationContext } from "./checks/index.js";
import type { CheckResult, VerificationMode } from "./verification-session.js";

/** Told of an unexpected error inside a check (a bug or an outage not mapped to a reason). */
export type CheckFailureReporter = (check: string, error: unknown) => void;

const toResult = (check: string, outcome: CheckOutcome): CheckResult => ({
  check,
  status: outcome.status,
  reason_code: outcome.reasonCode,
  message: outcome.message,
});

/**
 * Runs the checks in order. `fail_fast` stops at the first failure and records every later check
 * as `skipped` (`previous_check_failed`); `run_all` runs them all. A check that throws is recorded
 * as failed (`internal_error`), never as a crash of the submission.
 */
export async function runVerificationChecks(
  checks: readonly VerificationCheck[],
  context: VerificationContext,
  mode: VerificationMode,
  report: CheckFailureReporter,
): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  let firstFailure: string | undefined;
  for (const check of checks) {
    if (firstFailure && mode === "fail_fast") {
      results.push({
        check: check.name,
        status: "skipped",
        reason_code: "previous_check_failed",
        message: `not run: '${firstFailure}' failed (fail_fast)`,
      });
      continue;
    }
    let outcome: CheckOutcome;
    try {
      outcome = await check.run(context);
    } catch (error) {
      report(check.name, error);
      outcome = { status: "failed", reasonCode: "internal_error", message: "the check could not be completed" };
    }
    results.push(toResult(check.name, outcome));
    if (outcome.status === "failed") firstFailure ??= check.name;
  }
  return results;
}
