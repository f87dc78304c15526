// Tests of Interned<T>: equal values are held once, reads see the value, the pool forgets a value
// with its last holder, decoding interns labels, ownerReferences, generateName and finalizers
// (a run of equal values shares the one decoded last; a null or an error leaves nothing behind),
// and threads interning and dropping the same values concurrently.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <string>
#include <thread>
#include <vector>

#include "client/model/codec.hpp"
#include "client/model/decode_error.hpp"
#include "client/model/interned.hpp"
#include "client/model/pod.hpp"

namespace rg::client {
namespace {

using Owners = std::vector<OwnerReference>;

std::string pod_json(std::string_view name, std::string_view app, std::string_view owner_uid) {
  return R"({"metadata":{"name":")" + std::string(name) + R"(","labels":{"app":")" +
         std::string(app) +
         R"(","pod-template-hash":"5d8f7c9b6"},"ownerReferences":[{"apiVersion":"apps/v1",)"
         R"("kind":"ReplicaSet","name":"web-5d8f7c9b6","uid":")" +
         std::string(owner_uid) + R"(","controller":true}]}})";
}

TEST_CASE("equal values are held once and read like the value") {
  const Interned<Labels> a = Labels{{"app", "web-interned-test"}, {"tier", "front"}};
  const Interned<Labels> b = Labels{{"tier", "front"}, {"app", "web-interned-test"}};
  const Interned<Labels> other = Labels{{"app", "api-interned-test"}};
  CHECK(a.shares(b));
  CHECK(&a.get() == &b.get());
  CHECK_FALSE(a.shares(other));
  CHECK(a == b);
  CHECK_FALSE(a == other);
  CHECK(a.size() == 2);
  CHECK(a.at("app") == "web-interned-test");
  CHECK(a.contains("tier"));
  CHECK(a.find("missing") == a.end());
  CHECK(a.count("app") == 1);
  const Labels& plain = a;
  CHECK(plain.at("tier") == "front");
  std::size_t seen = 0;
  for (const auto& [key, value] : a) seen += key.size() + value.size();
  CHECK(seen == std::string("appweb-interned-testtierfront").size());
}

TEST_CASE("an empty value takes no pooled storage") {
  const Interned<Labels> none;
  const Interned<Labels> cleared = Labels{};
  CHECK(none.empty());
  CHECK(none.shares(cleared));
  CHECK(none.find("app") == none.end());
  const Interned<Owners> owners;
  CHECK(owners.size() == 0);
}

TEST_CASE("the pool forgets a value when its last holder goes, and makes it anew after") {
  auto& pool = detail::InternPool<Labels>::instance();
  const std::size_t before = pool.size();
  {
    const Interned<Labels> first = Labels{{"only-here", "1"}};
    CHECK(pool.size() == before + 1);
    {
      const Interned<Labels> second = Labels{{"only-here", "1"}};
      CHECK(pool.size() == before + 1);
    }
    CHECK(pool.size() == before + 1);  // `first` still holds it
  }
  CHECK(pool.size() == before);
  const Interned<Labels> again = Labels{{"only-here", "1"}};
  CHECK(again.at("only-here") == "1");
  CHECK(pool.size() == before + 1);
}

TEST_CASE("decoded pods of one ReplicaSet share their labels and ownerReferences") {
  const auto uid = "0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d";
  const Pod one = decode<Pod>(pod_json("web-5d8f7c9b6-aaaaa", "web", uid));
  const Pod two = decode<Pod>(pod_json("web-5d8f7c9b6-bbbbb", "web", uid));
  const Pod api = decode<Pod>(pod_json("api-5d8f7c9b6-ccccc", "api", uid));
  CHECK(one.metadata.labels.shares(two.metadata.labels));
  CHECK(one.metadata.owner_references.shares(two.metadata.owner_references));
  CHECK_FALSE(one.metadata.labels.shares(api.metadata.labels));
  CHECK(one.metadata.owner_references.shares(api.metadata.owner_references));
  REQUIRE(two.metadata.owner_references.size() == 1);
  CHECK(two.metadata.owner_references[0].uid == uid);
  CHECK(two.metadata.owner_references[0].controller);
  CHECK(api.metadata.labels.at("app") == "api");
  // Decoded after another value, still the one held before.
  const Pod three = decode<Pod>(pod_json("web-5d8f7c9b6-ddddd", "web", uid));
  CHECK(three.metadata.labels.shares(one.metadata.labels));
  // Encoding reads them back.
  const auto json = to_json(two);
  CHECK(json.at("metadata").at("labels").at("pod-template-hash") == "5d8f7c9b6");
  CHECK(json.at("metadata").at("ownerReferences").at(0).at("uid") == uid);
}

TEST_CASE("labels one fewer than the ones decoded before them are a value of their own") {
  const Pod web = decode<Pod>(pod_json("web-5d8f7c9b6-aaaaa", "web", "uid"));
  const Pod fewer = decode<Pod>(R"({"metadata":{"name":"p","labels":{"app":"web"}}})");
  CHECK(fewer.metadata.labels.size() == 1);
  CHECK_FALSE(fewer.metadata.labels.shares(web.metadata.labels));
  CHECK(web.metadata.labels.size() == 2);
}

TEST_CASE("a decoded value stays pooled until its thread decodes another, then goes") {
  auto& pool = detail::InternPool<Labels>::instance();
  // Whatever the thread decoded last may be held by it alone: replace it with a held value first.
  const Pod anchor = decode<Pod>(R"({"metadata":{"name":"p","labels":{"anchor":"1"}}})");
  const std::size_t before = pool.size();
  (void)decode<Pod>(R"({"metadata":{"name":"p","labels":{"decoded-only-here":"1"}}})");
  CHECK(pool.size() == before + 1);  // no pod holds it; the thread's last decoded value does
  (void)decode<Pod>(R"({"metadata":{"name":"p","labels":{"decoded-only-here":"2"}}})");
  CHECK(pool.size() == before + 1);  // the first left as the second came
  const Pod held = decode<Pod>(R"({"metadata":{"name":"p","labels":{"decoded-only-here":"2"}}})");
  CHECK(held.metadata.labels.at("decoded-only-here") == "2");
  CHECK(pool.size() == before + 1);
}

TEST_CASE("pods of one ReplicaSet share their generateName, which reads as a string") {
  const auto pod = [](std::string_view name, std::string_view generate_name) {
    return decode<Pod>(R"({"metadata":{"name":")" + std::string(name) + R"(","generateName":")" +
                       std::string(generate_name) + R"("}})");
  };
  const Pod one = pod("web-5d8f7c9b6-aaaaa", "web-5d8f7c9b6-");
  const Pod two = pod("web-5d8f7c9b6-bbbbb", "web-5d8f7c9b6-");
  const Pod api = pod("api-5d8f7c9b6-ccccc", "api-5d8f7c9b6-");
  CHECK(one.metadata.generate_name.shares(two.metadata.generate_name));
  CHECK_FALSE(one.metadata.generate_name.shares(api.metadata.generate_name));
  CHECK(two.metadata.generate_name == "web-5d8f7c9b6-");
  CHECK(std::string_view(api.metadata.generate_name) == "api-5d8f7c9b6-");
  CHECK(std::string(api.metadata.generate_name.get()) == "api-5d8f7c9b6-");
  CHECK(to_json(two).at("metadata").at("generateName") == "web-5d8f7c9b6-");
  CHECK_FALSE(to_json(decode<Pod>(R"({"metadata":{"name":"p"}})"))
                  .at("metadata")
                  .as_object()
                  .contains("generateName"));
  // Written like a string, and interned with the decoded ones.
  ObjectMeta written;
  written.generate_name = "web-5d8f7c9b6-";
  CHECK(written.generate_name.shares(one.metadata.generate_name));
  CHECK_THROWS_WITH_AS(decode<Pod>(R"({"metadata":{"name":"p","generateName":5}})"),
                       "decoding Pod: metadata.generateName: expected string, got number",
                       DecodeError);
}

TEST_CASE("equal finalizers are held once, read like a list and encode back") {
  const auto pod = [](std::string_view finalizers) {
    return decode<Pod>(R"({"metadata":{"name":"p","finalizers":)" + std::string(finalizers) + "}}");
  };
  const Pod one = pod(R"(["example.com/cleanup","foregroundDeletion"])");
  const Pod two = pod(R"(["example.com/cleanup","foregroundDeletion"])");
  const Pod other = pod(R"(["example.com/cleanup"])");
  CHECK(one.metadata.finalizers.shares(two.metadata.finalizers));
  CHECK_FALSE(one.metadata.finalizers.shares(other.metadata.finalizers));
  REQUIRE(one.metadata.finalizers.size() == 2);
  CHECK(one.metadata.finalizers[1] == "foregroundDeletion");
  const std::vector<std::string>& list = two.metadata.finalizers;
  CHECK(list == std::vector<std::string>{"example.com/cleanup", "foregroundDeletion"});
  CHECK(to_json(one).at("metadata").at("finalizers") ==
        boost::json::array{"example.com/cleanup", "foregroundDeletion"});
  CHECK(pod("null").metadata.finalizers.empty());
  CHECK(pod("[]").metadata.finalizers.empty());
  CHECK_FALSE(to_json(pod("[]")).at("metadata").as_object().contains("finalizers"));
  CHECK_THROWS_WITH_AS(pod(R"(["a",1])"),
                       "decoding Pod: metadata.finalizers[1]: expected string, got number",
                       DecodeError);
  // A list decoded after a failure starts empty.
  CHECK(pod(R"(["b"])").metadata.finalizers.size() == 1);
}

TEST_CASE("null labels and ownerReferences decode empty, and a failed decode leaves no scratch") {
  const Pod nulls =
      decode<Pod>(R"({"metadata":{"name":"p","labels":null,"ownerReferences":null}})");
  CHECK(nulls.metadata.labels.empty());
  CHECK(nulls.metadata.owner_references.empty());
  CHECK_THROWS_AS(decode<Pod>(R"({"metadata":{"name":"p","labels":{"a":"1","b":2}}})"),
                  DecodeError);
  // A sink reused after a failure starts each value from scratch (the list decoders reuse one).
  const Pod after = decode<Pod>(R"({"metadata":{"name":"p","labels":{"c":"3"}}})");
  CHECK(after.metadata.labels.size() == 1);
  CHECK(after.metadata.labels.at("c") == "3");
}

TEST_CASE("threads interning and dropping the same values agree on them") {
  constexpr int kThreads = 4;
  constexpr int kRounds = 2000;
  std::vector<std::thread> threads;
  std::vector<int> mismatches(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &mismatches] {
      for (int i = 0; i < kRounds; ++i) {
        const std::string value = "v" + std::to_string(i % 7);
        const Interned<Labels> held = Labels{{"threaded", value}};
        const Interned<Labels> again = Labels{{"threaded", value}};
        if (!held.shares(again) || held.at("threaded") != value) ++mismatches[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) CHECK(mismatches[t] == 0);
}

}  // namespace
}  // namespace rg::client
