{{/*
Helpers are prefixed with the chart name ("attesto.") so that they never collide with a parent chart's.
*/}}

{{- define "attesto.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "attesto.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "attesto.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels every object carries. */}}
{{- define "attesto.labels" -}}
helm.sh/chart: {{ include "attesto.chart" . }}
app.kubernetes.io/name: {{ include "attesto.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: attesto
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Labels that select the platform's pods (NetworkPolicies allow internal ports from these only). */}}
{{- define "attesto.platformSelector" -}}
app.kubernetes.io/name: {{ include "attesto.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Selector labels of one component: (dict "root" $ "component" "auth-server"). */}}
{{- define "attesto.selectorLabels" -}}
{{ include "attesto.platformSelector" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "attesto.componentLabels" -}}
{{ include "attesto.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "attesto.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository $tag -}}
{{- end -}}
{{- end -}}

{{/*
The services: name -> values key, the host name under ingress.domain (`host`), whether wallets and
relying parties see its public URL (`walletFacing`: it must then be https on a public host name), ports
(root README, "Services and ports"), which other services' internal and public URLs they are given, and which platform secrets
they read (keys of attesto.secretKeys; an optional key may be absent from the Secret).
*/}}
{{- define "attesto.catalog" -}}
auth-server:
  key: authServer
  host: auth
  walletFacing: true
  public: 8081
  internal: 9081
  internalUrls: [CREDENTIAL_ISSUER]
  publicUrls: [CREDENTIAL_ISSUER]
  secrets: [ACCESS_TOKEN_SIGNING_KEY, DPOP_NONCE_SECRET]
  ca: false
credential-issuer:
  key: credentialIssuer
  host: issuer
  walletFacing: true
  public: 8082
  internal: 9082
  internalUrls: [AUTH_SERVER, TRUST_REGISTRY, SCHEMA_REGISTRY, LEDGER, SCHEDULER]
  publicUrls: [AUTH_SERVER, TRUST_REGISTRY, SCHEMA_REGISTRY]
  secrets: [NONCE_SECRET, KEY_ENCRYPTION_KEYS]
  ca: false
verifier:
  key: verifier
  host: verifier
  walletFacing: true
  public: 8083
  internal: 9083
  internalUrls: [TRUST_REGISTRY, LEDGER, CREDENTIAL_ISSUER, SCHEDULER]
  publicUrls: []
  secrets: [KEY_ENCRYPTION_KEYS]
  ca: false
holder:
  key: holder
  host: wallet
  walletFacing: true
  public: 8084
  internal: 9084
  internalUrls: [LEDGER, TRUST_REGISTRY, SCHEDULER]
  publicUrls: []
  secrets: [HOLDER_TOKEN_SECRET, KEY_ENCRYPTION_KEYS]
  ca: false
trust-registry:
  key: trustRegistry
  host: registry
  walletFacing: true
  public: 8085
  internal: 9085
  internalUrls: [SCHEMA_REGISTRY, LEDGER]
  publicUrls: [CREDENTIAL_ISSUER]
  secrets: [LOGIN_TOKEN_SECRET, KEY_ENCRYPTION_KEYS]
  ca: true
schema-registry:
  key: schemaRegistry
  host: schemas
  walletFacing: true
  public: 8086
  internal: 9086
  internalUrls: []
  publicUrls: []
  secrets: []
  ca: false
scheduler:
  key: scheduler
  host: ""
  walletFacing: false
  public: 8087
  internal: 9087
  internalUrls: [LEDGER, TRUST_REGISTRY]
  publicUrls: []
  secrets: []
  ca: false
ledger:
  key: ledger
  host: ""
  walletFacing: false
  public: 8088
  internal: 9088
  internalUrls: []
  publicUrls: []
  secrets: [KEY_ENCRYPTION_KEYS, LEDGER_SIGNING_KEY]
  ca: false
{{- end -}}

{{/*
THE list of platform secret keys (the one list: the chart's Secret, its validation, the services'
secretKeyRefs and the README's `kubectl create secret` all follow it; test/k8s/chart-secrets.test.ts
checks the README against it). Per key: the `secrets.<value>` that fills it, and how the chart
generates it on first install when that value is empty (kept across upgrades, see secrets.yaml):
  random - 48 random alphanumerics (HMAC/HS256 keys)
  kek    - one key-encryption key `k1:<base64url of 32 random bytes>`
  p256   - a P-256 private key (SEC1 PEM)
Optional keys (`optional: true`) are neither required nor generated: the service copes without.
*/}}
{{- define "attesto.secretKeys" -}}
KEY_ENCRYPTION_KEYS: {value: keyEncryptionKeys, generate: kek}
ACCESS_TOKEN_SIGNING_KEY: {value: accessTokenSigningKey, generate: p256}
DPOP_NONCE_SECRET: {value: dpopNonceSecret, generate: random}
NONCE_SECRET: {value: nonceSecret, generate: random}
LOGIN_TOKEN_SECRET: {value: loginTokenSecret, generate: random}
HOLDER_TOKEN_SECRET: {value: holderTokenSecret, generate: random}
LEDGER_SIGNING_KEY: {value: ledgerSigningKey, optional: true}
{{- end -}}

{{/*
Each identity's own key in the platform Secret (docs/internal-rpc-permissions.md): the key's name ->
its entry under secrets.serviceIdentityKeys and the identity (the `kid` of its public key). Each pod
reads only its own; SERVICE_IDENTITY_PUBLIC_KEYS, in the same Secret, lists every public key.
*/}}
{{- define "attesto.identityKeys" -}}
AUTH_SERVER_SERVICE_IDENTITY_KEY: {value: authServer, identity: auth-server}
CREDENTIAL_ISSUER_SERVICE_IDENTITY_KEY: {value: credentialIssuer, identity: credential-issuer}
VERIFIER_SERVICE_IDENTITY_KEY: {value: verifier, identity: verifier}
HOLDER_SERVICE_IDENTITY_KEY: {value: holder, identity: holder}
TRUST_REGISTRY_SERVICE_IDENTITY_KEY: {value: trustRegistry, identity: trust-registry}
SCHEMA_REGISTRY_SERVICE_IDENTITY_KEY: {value: schemaRegistry, identity: schema-registry}
SCHEDULER_SERVICE_IDENTITY_KEY: {value: scheduler, identity: scheduler}
LEDGER_SERVICE_IDENTITY_KEY: {value: ledger, identity: ledger}
OPERATOR_SERVICE_IDENTITY_KEY: {value: operator, identity: operator}
{{- end -}}

{{/*
A new identity key: an Ed25519 private JWK ({"kty":"OKP","crv":"Ed25519","x","d"}). Helm makes the
key as PKCS#8 PEM, whose last 32 bytes are the seed (`d`); the public key (`x`) is read from a
throw-away self-signed certificate of that key, as the 32 bytes after the Ed25519
SubjectPublicKeyInfo prefix 302a300506032b6570032100 (base64 MCowBQYDK2VwAyEA).
*/}}
{{- define "attesto.generateIdentityKey" -}}
{{- $pem := genPrivateKey "ed25519" -}}
{{- $pkcs8 := $pem | replace "-----BEGIN PRIVATE KEY-----" "" | replace "-----END PRIVATE KEY-----" "" | nospace | b64dec -}}
{{- $cert := genSelfSignedCertWithKey "attesto-identity" nil nil 1 $pem -}}
{{- $certDer := $cert.Cert | replace "-----BEGIN CERTIFICATE-----" "" | replace "-----END CERTIFICATE-----" "" | nospace | b64dec -}}
{{- $x := index (splitList (b64dec "MCowBQYDK2VwAyEA") $certDer) 1 | trunc 32 -}}
{{- $b64url := dict "x" ($x | b64enc | replace "+" "-" | replace "/" "_" | trimSuffix "=") "d" (substr 16 48 $pkcs8 | b64enc | replace "+" "-" | replace "/" "_" | trimSuffix "=") -}}
{{- dict "kty" "OKP" "crv" "Ed25519" "x" $b64url.x "d" $b64url.d | toJson -}}
{{- end -}}

{{/* A fresh value for a secret key: (dict "generate" "random"|"kek"|"p256"). */}}
{{- define "attesto.generateSecret" -}}
{{- if eq .generate "random" -}}
{{- randAlphaNum 48 -}}
{{- else if eq .generate "kek" -}}
{{- printf "k1:%s" (randBytes 32 | replace "+" "-" | replace "/" "_" | trimSuffix "=") -}}
{{- else if eq .generate "p256" -}}
{{- genPrivateKey "ecdsa" -}}
{{- else -}}
{{- fail (printf "attesto.generateSecret: unknown generator %q" .generate) -}}
{{- end -}}
{{- end -}}

{{/* Name of a service's Kubernetes objects: (dict "root" $ "name" "auth-server"). */}}
{{- define "attesto.componentName" -}}
{{- printf "%s-%s" (include "attesto.fullname" .root) .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* A service's values: the defaults with its own section merged over them. */}}
{{- define "attesto.serviceValues" -}}
{{- $own := index .root.Values.services .key | default dict -}}
{{- toYaml (mergeOverwrite (deepCopy .root.Values.serviceDefaults) (deepCopy $own)) -}}
{{- end -}}

{{/* In-cluster internal (Connect) URL of a service by its env prefix, e.g. TRUST_REGISTRY. */}}
{{- define "attesto.internalUrl" -}}
{{- $catalog := include "attesto.catalog" .root | fromYaml -}}
{{- $name := .prefix | lower | replace "_" "-" -}}
{{- $entry := index $catalog $name -}}
{{- printf "http://%s:%v" (include "attesto.componentName" (dict "root" .root "name" $name)) $entry.internal -}}
{{- end -}}

{{/*
Host name the Ingress routes to a service (dict "root" $ "name" "auth-server"): its
`ingress.host`, else `<catalog host>.<ingress.domain>` for the wallet-facing services; empty when the
Ingress is off or the service is not routed.
*/}}
{{- define "attesto.ingressHost" -}}
{{- $catalog := include "attesto.catalog" .root | fromYaml -}}
{{- $entry := index $catalog .name -}}
{{- $values := include "attesto.serviceValues" (dict "root" .root "key" $entry.key) | fromYaml -}}
{{- if and .root.Values.ingress.enabled $values.enabled $values.ingress.enabled -}}
{{- if $values.ingress.host -}}
{{- $values.ingress.host -}}
{{- else if and .root.Values.ingress.domain $entry.host -}}
{{- printf "%s.%s" $entry.host .root.Values.ingress.domain -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Public URL of a service by its env prefix: its `publicUrl` value, else https://<ingress host> when the
Ingress routes it (TLS is terminated at the Ingress or in front of it), else its in-cluster Service URL
(which validate.yaml refuses for wallet-facing services unless allowInsecurePublicUrls is set).
*/}}
{{- define "attesto.publicUrl" -}}
{{- $catalog := include "attesto.catalog" .root | fromYaml -}}
{{- $name := .prefix | lower | replace "_" "-" -}}
{{- $entry := index $catalog $name -}}
{{- $values := include "attesto.serviceValues" (dict "root" .root "key" $entry.key) | fromYaml -}}
{{- $host := include "attesto.ingressHost" (dict "root" .root "name" $name) -}}
{{- if $values.publicUrl -}}
{{- $values.publicUrl | trimSuffix "/" -}}
{{- else if $host -}}
{{- printf "https://%s" $host -}}
{{- else -}}
{{- printf "http://%s:%v" (include "attesto.componentName" (dict "root" .root "name" $name)) $entry.public -}}
{{- end -}}
{{- end -}}

{{/*
Why a URL wallets or relying parties are given cannot serve them (empty when it can): it must be
https on a host name outside the cluster.
*/}}
{{- define "attesto.publicUrlProblem" -}}
{{- $url := urlParse . -}}
{{- $host := $url.hostname | default (regexReplaceAll ":[0-9]+$" $url.host "") | lower -}}
{{- if ne $url.scheme "https" -}}
is not https
{{- else if or (not (contains "." $host)) (regexMatch "\\.(svc|cluster\\.local|local|internal)$" $host) (eq $host "localhost") -}}
names an in-cluster or local host
{{- end -}}
{{- end -}}

{{- define "attesto.secretName" -}}
{{- default (printf "%s-secrets" (include "attesto.fullname" .)) .Values.secrets.existingSecret -}}
{{- end -}}

{{- define "attesto.databaseSecretName" -}}
{{- default (printf "%s-database" (include "attesto.fullname" .)) .Values.database.existingSecret -}}
{{- end -}}

{{- define "attesto.caSecretName" -}}
{{- default (printf "%s-issuing-ca" (include "attesto.fullname" .)) .Values.issuingCa.existingSecret -}}
{{- end -}}

{{- define "attesto.caEnabled" -}}
{{- if or .Values.issuingCa.existingSecret .Values.issuingCa.certPem -}}true{{- end -}}
{{- end -}}

{{- define "attesto.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "attesto.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "attesto.operatorName" -}}
{{- include "attesto.componentName" (dict "root" . "name" "operator") -}}
{{- end -}}

{{/* Where the operator reaches TenantService. */}}
{{- define "attesto.operatorTrustRegistryUrl" -}}
{{- default (include "attesto.internalUrl" (dict "root" . "prefix" "TRUST_REGISTRY")) .Values.operator.trustRegistryUrl -}}
{{- end -}}

{{/* The VerifierPolicyService the operator applies VerifierPolicy resources to. */}}
{{- define "attesto.operatorVerifierUrl" -}}
{{- default (include "attesto.internalUrl" (dict "root" . "prefix" "VERIFIER")) .Values.operator.verifierUrl -}}
{{- end -}}

{{/* The volumes every container needs with a read-only root filesystem: a writable /tmp. */}}
{{- define "attesto.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ .Values.tmpVolumeSizeLimit }}
{{- end -}}
