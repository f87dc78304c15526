{{/* Names, labels and small computed values shared by the templates. */}}

{{- define "replica-guard.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The release's full name: the release name alone when it already contains the chart name. */}}
{{- define "replica-guard.fullname" -}}
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

{{- define "replica-guard.selectorLabels" -}}
app.kubernetes.io/name: {{ include "replica-guard.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end -}}

{{- define "replica-guard.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "replica-guard.selectorLabels" . }}
app.kubernetes.io/part-of: replica-guard
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "replica-guard.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "replica-guard.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "replica-guard.image" -}}
{{- $repository := .Values.image.repository -}}
{{- with .Values.image.registry -}}
{{- $repository = printf "%s/%s" (trimSuffix "/" .) $repository -}}
{{- end -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" $repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" $repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{- define "replica-guard.leaderElectionId" -}}
{{- default (include "replica-guard.fullname" .) .Values.leaderElection.id -}}
{{- end -}}

{{- define "replica-guard.metricsServiceName" -}}
{{- printf "%s-metrics" (include "replica-guard.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The metrics Service's port name: https when served securely (kubebuilder's metrics_service). */}}
{{- define "replica-guard.metricsPortName" -}}
{{- if .Values.metrics.secure }}https{{ else }}metrics{{ end -}}
{{- end -}}

{{/* "true" when replica-guard serves /metrics over HTTPS behind TokenReview/SubjectAccessReview. */}}
{{- define "replica-guard.secureMetrics" -}}
{{- if and .Values.metrics.enabled .Values.metrics.secure -}}
true
{{- end -}}
{{- end -}}

{{/* Where the metrics certificate Secret (metrics.certSecret) is mounted. */}}
{{- define "replica-guard.metricsCertPath" -}}
/etc/replica-guard/metrics-certs
{{- end -}}

{{/*
"true" when the Prometheus Operator's objects are to be rendered: the cluster serves
monitoring.coreos.com/v1 (or `helm template --api-versions monitoring.coreos.com/v1`), or
monitoring.force is set.
*/}}
{{- define "replica-guard.monitoringAvailable" -}}
{{- if or .Values.monitoring.force (.Capabilities.APIVersions.Has "monitoring.coreos.com/v1") -}}
true
{{- end -}}
{{- end -}}

{{/* The PromQL selector of this release's scrape job (the ServiceMonitor's job is the Service's name). */}}
{{- define "replica-guard.jobSelector" -}}
job="{{ include "replica-guard.metricsServiceName" . }}"
{{- end -}}

{{/* A count-or-percentage value as a flag value: numbers as plain integers (never 1e+06). */}}
{{- define "replica-guard.countOrPercent" -}}
{{- if kindIs "string" . -}}
{{- . -}}
{{- else -}}
{{- int64 . -}}
{{- end -}}
{{- end -}}

{{/* The subject of every binding: replica-guard's ServiceAccount. */}}
{{- define "replica-guard.rbacSubjects" -}}
- kind: ServiceAccount
  name: {{ include "replica-guard.serviceAccountName" . }}
  namespace: {{ .Release.Namespace }}
{{- end -}}
