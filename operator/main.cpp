// replica-guard's entry point: parses flags and runs the operator.
#include <CLI/CLI.hpp>

#include <iostream>

#include "client/version.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "replica-guard: keeps opted-in Deployments at their serving replicas when nodes fail"};
  app.set_version_flag("--version", std::string(rg::kVersion));
  CLI11_PARSE(app, argc, argv);
  std::cout << "replica-guard " << rg::kVersion << '\n';
  return 0;
}
