// -----------------------------------------------------------------------------
// base/name_clashes.h
// -----------------------------------------------------------------------------
//
// `NameClashes<List>(name_of)`: the `kName`s that two entries of a family's
// type list share, one sentence each, naming both types. Two implementations
// with one kName would otherwise fail only inside gtest ("must use the same
// test fixture class"), which does not say which ones clash, and would merge
// in the sweep's results. Each family's names test calls it on its list.
//
//   const auto clashes = NameClashes(AllBuffers{}, [](auto t) {
//     return std::string(decltype(t)::type::kName);
//   });
//
// Thread-safety: thread-safe (no shared state).

#ifndef SERVERKIT_BASE_NAME_CLASHES_H_
#define SERVERKIT_BASE_NAME_CLASHES_H_

#include <cxxabi.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "base/type_list.h"

namespace serverkit {

// The type's name as written in C++ ("serverkit::MutexQueue<int>").
template <typename T>
std::string TypeName() {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> s(
      abi::__cxa_demangle(typeid(T).name(), nullptr, nullptr, &status),
      std::free);
  return status == 0 && s ? std::string(s.get()) : typeid(T).name();
}

// `name_of(std::type_identity<E>{})` gives entry E's name.
template <typename... Es, typename F>
std::vector<std::string> NameClashes(TypeList<Es...>, F name_of) {
  std::map<std::string, std::vector<std::string>> by_name;
  (by_name[name_of(std::type_identity<Es>{})].push_back(TypeName<Es>()), ...);
  std::vector<std::string> out;
  for (const auto& [name, types] : by_name) {
    if (types.size() < 2) continue;
    std::string line = "kName \"" + name + "\" is used by " + types[0];
    for (std::size_t i = 1; i < types.size(); ++i) {
      line += (i + 1 == types.size() ? " and " : ", ") + types[i];
    }
    out.push_back(line);
  }
  return out;
}

}  // namespace serverkit

#endif  // SERVERKIT_BASE_NAME_CLASHES_H_
