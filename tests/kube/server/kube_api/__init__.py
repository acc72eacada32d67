"""The parts of the Kubernetes API test server; kube_test_server.py, which
runs them, describes what they model."""
