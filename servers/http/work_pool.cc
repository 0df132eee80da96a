// -----------------------------------------------------------------------------
// servers/http/work_pool.cc
// -----------------------------------------------------------------------------
//
// Every pool of AllPools behind WorkPool (work_pool.h), instantiated here
// once.

#include "servers/http/work_pool.h"

#include <utility>

#include "base/type_list.h"
#include "threadpool/all_pools.h"

namespace serverkit::http {
namespace {

template <Executor E>
class AnyPool final : public WorkPool {
 public:
  explicit AnyPool(std::size_t threads) : pool_(threads) {}

  std::string_view name() const override { return E::kName; }
  std::size_t workers() const override { return pool_.workers(); }
  std::size_t shutdown(ShutdownMode mode) override {
    return pool_.shutdown(mode);
  }
  std::uint64_t task_exceptions() const override {
    return pool_.task_exceptions();
  }

 private:
  bool do_try_submit(Task&& task) override {
    return pool_.try_submit(std::move(task));
  }

  E pool_;
};

}  // namespace

std::vector<std::string> WorkPoolNames() {
  std::vector<std::string> names;
  [&]<typename... Es>(TypeList<Es...>) {
    (names.emplace_back(Es::kName), ...);
  }(AllPools{});
  return names;
}

std::unique_ptr<WorkPool> MakeWorkPool(std::string_view name,
                                       std::size_t threads) {
  std::unique_ptr<WorkPool> pool;
  [&]<typename... Es>(TypeList<Es...>) {
    (
        [&] {
          if (!pool && name == Es::kName) {
            pool = std::make_unique<AnyPool<Es>>(threads);
          }
        }(),
        ...);
  }(AllPools{});
  return pool;
}

}  // namespace serverkit::http
