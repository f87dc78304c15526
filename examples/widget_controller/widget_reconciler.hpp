// WidgetReconciler: brings one Widget's ConfigMap and status in line with its spec -- the
// Reconcile of kubebuilder's tutorial. It reads the caches through listers and writes through the
// RestClient; an exception means "retry later" (the worker requeues the key with backoff).
#pragma once

#include <boost/asio/awaitable.hpp>

#include <string>

#include "client/model/config_map.hpp"
#include "client/record/event_recorder.hpp"
#include "client/rest/rest_client.hpp"
#include "informer/lister.hpp"
#include "widget.hpp"

namespace example {

/// The ConfigMap a Widget wants: "<widget>-widget", its data from the spec, controlled by it.
rg::client::ConfigMap desired_config_map(const Widget& widget);

class WidgetReconciler {
 public:
  /// Everything must outlive the reconciler.
  WidgetReconciler(rg::client::RestClient& client, rg::informer::Lister<Widget> widgets,
                   rg::informer::Lister<rg::client::ConfigMap> config_maps,
                   rg::client::EventRecorder& events)
      : client_(client), widgets_(widgets), config_maps_(config_maps), events_(events) {}

  /// Reconciles the Widget of `key` ("namespace/name").
  boost::asio::awaitable<void> reconcile(const std::string& key);

 private:
  boost::asio::awaitable<void> write_status(const Widget& widget, const WidgetStatus& status);

  rg::client::RestClient& client_;
  rg::informer::Lister<Widget> widgets_;
  rg::informer::Lister<rg::client::ConfigMap> config_maps_;
  rg::client::EventRecorder& events_;
};

}  // namespace example
