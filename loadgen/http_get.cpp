#include "loadgen/http_get.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>  // before Asio (Boost 1.74 with C++20)

namespace llm::loadgen {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

HttpGetResult http_get(const BenchConfig& target, const std::string& path) {
  const std::string host = target.host + ":" + std::to_string(target.port);
  const std::string url = "http://" + host + target.base_path + path;
  try {
    net::io_context ioc;
    tcp::resolver resolver(ioc);
    tcp::socket socket(ioc);
    net::connect(socket, resolver.resolve(target.host, std::to_string(target.port)));
    http::request<http::empty_body> req(http::verb::get, target.base_path + path, 11);
    req.set(http::field::host, host);
    if (!target.api_key.empty()) req.set(http::field::authorization, "Bearer " + target.api_key);
    http::write(socket, req);
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(64 << 20);
    http::read(socket, buffer, parser);
    const auto& res = parser.get();
    HttpGetResult out;
    out.status = static_cast<int>(res.result_int());
    out.server = std::string(res[http::field::server]);
    out.body = res.body();
    return out;
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot GET " + url + ": " + e.what());
  }
}

std::string first_served_model(const BenchConfig& target) {
  const std::string url =
      "http://" + target.host + ":" + std::to_string(target.port) + target.base_path + "/v1/models";
  try {
    const HttpGetResult r = http_get(target, "/v1/models");
    if (r.status != 200) throw std::runtime_error("HTTP " + std::to_string(r.status));
    const auto doc = nlohmann::json::parse(r.body);
    return doc.at("data").at(0).at("id").get<std::string>();
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot get the model name from GET " + url + " (" + e.what() +
                             "); pass --model NAME");
  }
}

}  // namespace llm::loadgen
