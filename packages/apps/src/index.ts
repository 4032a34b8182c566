/**
 * @cloudcall/apps: App Platform as tool definitions and as a typed API: apps created and updated
 * from a spec (checked before sending, `AppSpec`), their deployments, logs, rollbacks, alerts,
 * and App Platform's instance sizes and regions.
 *
 * ```ts
 * import { createClient } from '@cloudcall/core';
 * import { appsApi } from '@cloudcall/apps';
 * const apps = appsApi(createClient({ token }));
 * const { app } = await apps.appCreate({ Spec: { name: 'shop', services: [...] } });
 * ```
 */
import { type ApiClient, type BoundTools, bindTools, type ToolFamily } from '@cloudcall/core';
import { AppSpec } from './spec.js';
import { appsTools } from './tools.js';

export type {
  App,
  AppAlert,
  AppDeployment,
  AppDeploymentList,
  AppInstanceSize,
  AppList,
  AppLogs,
  AppPropose,
  AppRegion,
  AppRollbackValidation,
  AppSpecShape,
} from './types.js';
export { AppSpec, appsTools };

export const appsFamily: ToolFamily = {
  name: 'apps',
  title: 'App Platform',
  description:
    'App Platform: apps from a spec (create, update, validate, delete), deployments, logs, rollbacks, alerts, instance sizes, regions.',
  tools: appsTools,
  onRequest: true,
};

/** The apps tools bound to a client: `appCreate`, `appListDeployments`, `appGetLogs`... */
export function appsApi(client: ApiClient): BoundTools<typeof appsTools> {
  return bindTools(client, appsTools);
}
