import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { Counter, Histogram, type Registry } from "prom-client";

type Labels = "method" | "code";

/** The metric named `name` in `registry`, created once (a registry may serve several servers in tests). */
function once<T>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}

/** `InvalidArgument` -> `invalid_argument`: the gRPC status name, as Prometheus labels usually spell it. */
const codeLabel = (code: Code) => Code[code].replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();

/**
 * RED metrics of the internal port: `rpc_server_requests_total` and `rpc_server_duration_seconds`
 * by `method` (`<package.Service>/<Method>`, a bounded set) and `code` (`ok` or the Connect code).
 * Placed outside authentication and error mapping, so refused credentials and mapped errors count.
 */
export function rpcMetricsInterceptor(registry: Registry): Interceptor {
  const labelNames = ["method", "code"] as const;
  const requests = once(
    registry,
    "rpc_server_requests_total",
    () =>
      new Counter<Labels>({
        name: "rpc_server_requests_total",
        help: "Internal RPCs answered, by method and Connect code",
        labelNames,
        registers: [registry],
      }),
  );
  const duration = once(
    registry,
    "rpc_server_duration_seconds",
    () =>
      new Histogram<Labels>({
        name: "rpc_server_duration_seconds",
        help: "Internal RPC duration in seconds, by method and Connect code",
        labelNames,
        buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
        registers: [registry],
      }),
  );
  return (next) => async (req) => {
    const method = `${req.service.typeName}/${req.method.name}`;
    const stop = duration.startTimer();
    let code = "ok";
    try {
      return await next(req);
    } catch (error) {
      code = codeLabel(ConnectError.from(error).code);
      throw error;
    } finally {
      requests.inc({ method, code });
      stop({ method, code });
    }
  };
}
