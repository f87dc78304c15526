{{/*
replica-guard's RBAC rules. manifests/20-rbac.yaml is the one source of these rules; this file
renders the same ones, and test/ship/rbac_drift.py fails when the two grant different permissions.
*/}}

{{/* Namespaced resources: cluster-wide, or in each watched namespace. */}}
{{- define "replica-guard.rules.watchedNamespaces" -}}
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["list", "watch", "patch"]
- apiGroups: ["apps"]
  resources: ["deployments/scale"]
  verbs: ["patch"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["list", "watch"]
{{- if .Values.detectHPA }}
- apiGroups: ["autoscaling"]
  resources: ["horizontalpodautoscalers"]
  verbs: ["list", "watch"]
{{- end }}
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- if .Values.actions.markSuspectPodsNotReady }}
{{- /* Marking pods on suspect nodes NotReady: a JSON patch of their status. */}}
- apiGroups: [""]
  resources: ["pods/status"]
  verbs: ["patch"]
{{- end }}
{{- end -}}

{{/* Cluster-scoped resources: always cluster-wide. */}}
{{- define "replica-guard.rules.cluster" -}}
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["list", "watch"]
{{- end -}}

{{/* Tainting suspect nodes (actions.taintSuspectNodes): read a node, then JSON-patch its taints. */}}
{{- define "replica-guard.rules.suspectNodeTaints" -}}
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["get", "patch"]
{{- end -}}

{{/* The kubelets' node Leases, in kube-node-lease (policy.nodeLeaseGrace not "0"). */}}
{{- define "replica-guard.rules.nodeLeases" -}}
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["list", "watch"]
{{- end -}}

{{/* The leader-election Lease, in the release namespace. */}}
{{- define "replica-guard.rules.leaderElection" -}}
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "create", "update"]
{{- end -}}

{{/* The secure /metrics' reviews (metrics.secure): cluster-scoped, always cluster-wide. */}}
{{- define "replica-guard.rules.metricsAuth" -}}
- apiGroups: ["authentication.k8s.io"]
  resources: ["tokenreviews"]
  verbs: ["create"]
- apiGroups: ["authorization.k8s.io"]
  resources: ["subjectaccessreviews"]
  verbs: ["create"]
{{- end -}}
