import type { OperationHandler } from '../handler.ts';

export const health: OperationHandler<'health_health'> = async ({ em, services }) => {
  try {
    await em.getConnection().execute('select 1');
  } catch {
    return { status: 503, body: { message: 'Service Unavailable', error: 'Database unreachable' } };
  }
  const analytics = services.analytics
    ? { engine: 'clickhouse' as const, ...(await services.analytics.lag()) }
    : { engine: 'postgres' as const };
  return { status: 200, body: { status: 'OK', version: services.version, analytics } };
};
