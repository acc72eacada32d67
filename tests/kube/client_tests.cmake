# The Kubernetes client (src/kube): kubeconfig and exec plugins on their own,
# the client against the test API server. Included from CMakeLists.txt.
add_executable(sindri_kube_client_tests kubeconfig_test.cpp client_test.cpp)
target_link_libraries(sindri_kube_client_tests PRIVATE sindri_kube sindri_http sindri_value GTest::gtest_main)
target_include_directories(sindri_kube_client_tests PRIVATE ${PROJECT_SOURCE_DIR}/tests)
gtest_discover_tests(sindri_kube_client_tests DISCOVERY_TIMEOUT 60)

# The agent's Kubernetes sink (src/agent/kube_sink.cpp) against the test API server.
add_executable(sindri_agent_kube_sink_tests ../agent/kube_sink_test.cpp)
target_link_libraries(sindri_agent_kube_sink_tests PRIVATE sindri_agent_kube sindri_kube sindri_value GTest::gtest_main)
target_include_directories(sindri_agent_kube_sink_tests PRIVATE ${PROJECT_SOURCE_DIR}/tests)
gtest_discover_tests(sindri_agent_kube_sink_tests DISCOVERY_TIMEOUT 60)
