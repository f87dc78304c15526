// The request paths, Accept headers and object fragments kube-sim's HTTP tests share.
#pragma once

#include <string>

namespace rg::sim::test {

inline const std::string kConfigMaps = "/api/v1/namespaces/default/configmaps";
inline const std::string kDeployments = "/apis/apps/v1/namespaces/default/deployments";

/// kubectl get's Accept: a Table (meta.k8s.io v1, else v1beta1), else the object as JSON.
inline const std::string kTableAccept =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
    "g=meta.k8s.io,application/json";

/// An HPA spec's member pointing at the Deployment "web".
inline const std::string kWebScaleTarget =
    R"("scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"})";

}  // namespace rg::sim::test
