/**
 * Validates a rendered Kubernetes object against the Kubernetes OpenAPI schemas (kubernetes-models),
 * and ServiceMonitors against the Prometheus Operator's (@kubernetes-models/prometheus-operator).
 */
export interface RenderedObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

type Model = new (data: object) => { validate(): void };

export async function modelFor(apiVersion: string, kind: string): Promise<Model> {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  const specifier =
    group === ""
      ? `kubernetes-models/${version}`
      : group === "monitoring.coreos.com"
        ? `@kubernetes-models/prometheus-operator/${group}/${version}`
        : `kubernetes-models/${group}/${version}`;
  const module = (await import(specifier)) as Record<string, Model | undefined>;
  const model = module[kind];
  if (!model) throw new Error(`no model for ${apiVersion} ${kind}`);
  return model;
}

/** Throws with the object's kind and name when it does not validate. */
export async function validateObject(object: RenderedObject): Promise<void> {
  const Model = await modelFor(object.apiVersion, object.kind);
  try {
    new Model(object).validate();
  } catch (error) {
    throw new Error(`${object.kind} ${object.metadata?.name}: ${(error as Error).message}`);
  }
}
