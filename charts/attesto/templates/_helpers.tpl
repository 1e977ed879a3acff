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
The services: name -> values key, ports (DESIGN.md), which other services' internal and public URLs
they are given, and which platform secrets they read. `optionalSecrets` may be absent from the Secret.
*/}}
{{- define "attesto.catalog" -}}
auth-server:
  key: authServer
  public: 8081
  internal: 9081
  internalUrls: [CREDENTIAL_ISSUER]
  publicUrls: [CREDENTIAL_ISSUER]
  secrets: [ACCESS_TOKEN_SIGNING_KEY, DPOP_NONCE_SECRET]
  optionalSecrets: []
  ca: false
credential-issuer:
  key: credentialIssuer
  public: 8082
  internal: 9082
  internalUrls: [AUTH_SERVER, TRUST_REGISTRY, SCHEMA_REGISTRY, LEDGER, SCHEDULER]
  publicUrls: [AUTH_SERVER, TRUST_REGISTRY, SCHEMA_REGISTRY]
  secrets: [NONCE_SECRET, KEY_ENCRYPTION_KEYS]
  optionalSecrets: []
  ca: false
verifier:
  key: verifier
  public: 8083
  internal: 9083
  internalUrls: [TRUST_REGISTRY, LEDGER, CREDENTIAL_ISSUER]
  publicUrls: []
  secrets: [KEY_ENCRYPTION_KEYS]
  optionalSecrets: []
  ca: false
holder:
  key: holder
  public: 8084
  internal: 9084
  internalUrls: [LEDGER]
  publicUrls: []
  secrets: [HOLDER_TOKEN_SECRET, KEY_ENCRYPTION_KEYS]
  optionalSecrets: []
  ca: false
trust-registry:
  key: trustRegistry
  public: 8085
  internal: 9085
  internalUrls: [SCHEMA_REGISTRY, LEDGER]
  publicUrls: [CREDENTIAL_ISSUER]
  secrets: [LOGIN_TOKEN_SECRET, KEY_ENCRYPTION_KEYS]
  optionalSecrets: []
  ca: true
schema-registry:
  key: schemaRegistry
  public: 8086
  internal: 9086
  internalUrls: []
  publicUrls: []
  secrets: []
  optionalSecrets: []
  ca: false
scheduler:
  key: scheduler
  public: 8087
  internal: 9087
  internalUrls: [LEDGER, TRUST_REGISTRY]
  publicUrls: []
  secrets: []
  optionalSecrets: []
  ca: false
ledger:
  key: ledger
  public: 8088
  internal: 9088
  internalUrls: []
  publicUrls: []
  secrets: [KEY_ENCRYPTION_KEYS]
  optionalSecrets: [LEDGER_SIGNING_KEY]
  ca: false
{{- end -}}

{{/* The platform secret keys and the values that fill them when the chart creates the Secret. */}}
{{- define "attesto.secretKeys" -}}
SERVICE_AUTH_SECRET: serviceAuthSecret
KEY_ENCRYPTION_KEYS: keyEncryptionKeys
ACCESS_TOKEN_SIGNING_KEY: accessTokenSigningKey
DPOP_NONCE_SECRET: dpopNonceSecret
NONCE_SECRET: nonceSecret
LOGIN_TOKEN_SECRET: loginTokenSecret
HOLDER_TOKEN_SECRET: holderTokenSecret
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
Public URL of a service by its env prefix: its `publicUrl` value, else https://<ingress host> when the
Ingress serves it, else its in-cluster Service URL.
*/}}
{{- define "attesto.publicUrl" -}}
{{- $catalog := include "attesto.catalog" .root | fromYaml -}}
{{- $name := .prefix | lower | replace "_" "-" -}}
{{- $entry := index $catalog $name -}}
{{- $values := include "attesto.serviceValues" (dict "root" .root "key" $entry.key) | fromYaml -}}
{{- if $values.publicUrl -}}
{{- $values.publicUrl -}}
{{- else if and .root.Values.ingress.enabled $values.ingress.host -}}
{{- printf "%s://%s" (ternary "https" "http" (gt (len .root.Values.ingress.tls) 0)) $values.ingress.host -}}
{{- else -}}
{{- printf "http://%s:%v" (include "attesto.componentName" (dict "root" .root "name" $name)) $entry.public -}}
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
