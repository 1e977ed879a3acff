import { describeFieldErrors, type FieldError, InvalidRequest } from "@attesto/runtime/errors";

/** A form-encoded token request: a parameter sent twice arrives as an array. */
export type TokenParameters = Record<string, string | string[] | undefined>;

/**
 * The value of one parameter; undefined when absent or empty. RFC 6749 §3.2: parameters must
 * not be repeated. Unknown parameters are never looked at (wallets send `resource`, `client_id`, ...).
 */
export function optionalParameter(parameters: TokenParameters, name: string): string | undefined {
  const value = parameters[name];
  if (Array.isArray(value)) throw new InvalidRequest(`${name} must not be repeated`);
  return value === undefined || value === "" ? undefined : value;
}

export function requiredParameter(parameters: TokenParameters, name: string): string {
  const value = optionalParameter(parameters, name);
  if (value === undefined) throw new InvalidRequest(`${name} is required`);
  return value;
}

/** Several required parameters at once: every missing or repeated one is named in one `invalid_request`. */
export function requiredParameters<const N extends string>(
  parameters: TokenParameters,
  names: readonly N[],
): Record<N, string> {
  const errors: FieldError[] = [];
  const values: Partial<Record<N, string>> = {};
  for (const name of names) {
    const value = parameters[name];
    if (Array.isArray(value)) errors.push({ field: name, message: "must not be repeated" });
    else if (value === undefined || value === "") errors.push({ field: name, message: "is required" });
    else values[name] = value;
  }
  if (errors.length > 0) throw new InvalidRequest(describeFieldErrors(errors), { fieldErrors: errors });
  return values as Record<N, string>;
}
