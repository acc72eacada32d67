#pragma once
// A webhook receiver on loopback for the webhook tests: it records every
// request it gets and answers with the statuses it is given, one per request
// (the last one repeats), or never answers while `hang` is set (until the
// receiver is destroyed).

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "http/server.hpp"

namespace sindri_test {

class WebhookReceiver {
 public:
  struct Received {
    std::string target;
    std::vector<sindri::http::Header> headers;
    std::string body;
    std::string_view header(std::string_view name) const { return sindri::http::find_header(headers, name); }
  };

  explicit WebhookReceiver(std::deque<int> statuses = {200}) : statuses_(std::move(statuses)) {
    sindri::http::ServerOptions options;
    options.stop_grace = std::chrono::seconds(0);
    server_ = std::make_unique<sindri::http::Server>(
        options, [this](sindri::http::Request& request) { return answer(request); },
        [](int status, std::string_view, std::string_view message) {
          sindri::http::Response response;
          response.status = status;
          response.body = std::string(message);
          return response;
        });
    auto started = server_->start();
    EXPECT_TRUE(started.ok()) << started.error().message;
  }

  ~WebhookReceiver() {
    {
      std::lock_guard lock(mutex_);
      hang_ = false;
      closing_ = true;
    }
    changed_.notify_all();
    server_->end_grace();
    server_->stop();
  }

  std::string url(std::string_view path = "/hook") const {
    return "http://127.0.0.1:" + std::to_string(server_->port()) + std::string(path);
  }

  void set_hang(bool hang) {
    std::lock_guard lock(mutex_);
    hang_ = hang;
  }

  // Waits (at most `limit`) until `count` requests have arrived.
  std::vector<Received> wait_for(size_t count, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, limit, [&] { return received_.size() >= count; });
    return received_;
  }

  std::vector<Received> received() {
    std::lock_guard lock(mutex_);
    return received_;
  }

 private:
  sindri::http::Response answer(sindri::http::Request& request) {
    std::unique_lock lock(mutex_);
    received_.push_back({request.target, request.headers, request.body});
    changed_.notify_all();
    changed_.wait(lock, [&] { return !hang_ || closing_; });
    sindri::http::Response response;
    response.status = statuses_.front();
    if (statuses_.size() > 1) statuses_.pop_front();
    response.body = "{\"received\":true}";
    return response;
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<int> statuses_;
  std::vector<Received> received_;
  bool hang_ = false;
  bool closing_ = false;
  std::unique_ptr<sindri::http::Server> server_;
};

}  // namespace sindri_test
