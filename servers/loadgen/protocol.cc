#include "servers/loadgen/protocol.h"

namespace serverkit::loadgen {

std::string_view ProtocolName(Protocol p) {
  return p == Protocol::kHttp ? "http" : "echo";
}

std::optional<Protocol> ParseProtocol(std::string_view s) {
  if (s == "http") return Protocol::kHttp;
  if (s == "echo") return Protocol::kEcho;
  return std::nullopt;
}

std::string HttpRequest(std::string_view path, std::string_view host_header) {
  std::string r = "GET ";
  r.append(path);
  r.append(" HTTP/1.1\r\nHost: ");
  r.append(host_header);
  r.append("\r\n\r\n");
  return r;
}

std::string EchoRequest(std::size_t size) {
  std::string r(size, '\0');
  for (std::size_t i = 0; i < size; ++i) r[i] = static_cast<char>(i % 251);
  return r;
}

}  // namespace serverkit::loadgen
