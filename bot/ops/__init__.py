"""Operations: logs, Prometheus metrics, readiness checks and the /healthz /readyz /metrics endpoint of `orienta run`."""
