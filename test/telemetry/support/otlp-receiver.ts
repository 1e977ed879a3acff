import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * An OTLP/HTTP traces receiver for tests: a real HTTP server that accepts what the platform's
 * OTLP exporter sends (`POST /v1/traces`, JSON encoding: ids are hex strings) and keeps every span.
 */

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: KeyValue[];
}
interface ExportTraceServiceRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{ scope?: { name?: string }; spans?: OtlpSpan[] }>;
  }>;
}

/** OTLP span kinds (opentelemetry/proto/trace/v1/trace.proto). */
export const SpanKind = { INTERNAL: 1, SERVER: 2, CLIENT: 3 } as const;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Undefined for a root span. */
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  /** The instrumentation scope that made the span, e.g. `@opentelemetry/instrumentation-pg`. */
  scope: string;
  /** `service.name` of the exporting process. */
  serviceName: string;
  attributes: Record<string, string | number | boolean>;
}

export interface OtlpReceiver {
  /** The URL to configure as OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  spans(): ReceivedSpan[];
  /** Requests that were not a decodable OTLP/JSON traces export (path, content type or body). */
  rejected(): string[];
  close(): Promise<void>;
}

const attributeValue = (value: AnyValue): string | number | boolean =>
  value.stringValue ?? value.boolValue ?? value.doubleValue ?? Number(value.intValue ?? Number.NaN);

const attributesOf = (list: KeyValue[] | undefined) =>
  Object.fromEntries((list ?? []).map(({ key, value }) => [key, attributeValue(value)]));

function read(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function decode(body: ExportTraceServiceRequest): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans) => {
    const serviceName = String(attributesOf(resourceSpans.resource?.attributes)["service.name"] ?? "");
    return (resourceSpans.scopeSpans ?? []).flatMap((scopeSpans) =>
      (scopeSpans.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId || undefined,
        name: span.name,
        kind: span.kind,
        scope: scopeSpans.scope?.name ?? "",
        serviceName,
        attributes: attributesOf(span.attributes),
      })),
    );
  });
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const rejected: string[] = [];
  const server: Server = createServer((request, response) => {
    void read(request).then((text) => {
      const type = request.headers["content-type"] ?? "";
      if (request.method !== "POST" || request.url !== "/v1/traces" || !type.startsWith("application/json")) {
        rejected.push(`${request.method} ${request.url} ${type}`);
        response.writeHead(404).end();
        return;
      }
      try {
        spans.push(...decode(JSON.parse(text) as ExportTraceServiceRequest));
      } catch (error) {
        rejected.push(`undecodable body: ${(error as Error).message}`);
        response.writeHead(400).end();
        return;
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    // A bare collector address, as operators configure it; the exporter adds /v1/traces.
    endpoint: `http://127.0.0.1:${port}`,
    spans: () => [...spans],
    rejected: () => [...rejected],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
