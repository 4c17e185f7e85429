import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { Config, Logger, ProcessRole } from '@pullwright/core';

/**
 * With OTEL_EXPORTER_OTLP_ENDPOINT set, registers the process's tracer provider: spans go,
 * batched, to `<endpoint>/v1/traces` (OTLP over HTTP). Unset, nothing is registered and every
 * span is a no-op. OTEL_SERVICE_NAME overrides the service name (`pullwright-<role>`).
 * Returns what flushes the last spans at shutdown.
 */
export function startTracing(
  config: Pick<Config, 'otlpEndpoint' | 'otelServiceName'>,
  role: ProcessRole,
  logger: Logger,
): () => Promise<void> {
  if (!config.otlpEndpoint) return async () => undefined;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.otelServiceName ?? `pullwright-${role}` }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `${config.otlpEndpoint.replace(/\/+$/, '')}/v1/traces` })),
    ],
  });
  provider.register();
  logger.info({ endpoint: config.otlpEndpoint }, 'exporting traces (OTLP/HTTP)');
  return () => provider.shutdown().catch(() => undefined);
}
