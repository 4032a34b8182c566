/**
 * The platform's answers to the App Platform tools, as library users receive them: the shapes of
 * the platform's OpenAPI description (@cloudcall/platform, generated). `Always` marks what the
 * description leaves optional and the platform always sends.
 */
import type { Always, ListAnswer, Schemas } from '@cloudcall/platform';

export type App = Always<Schemas['app'], 'id' | 'spec' | 'created_at'>;
export type AppList = ListAnswer<'apps_list', 'apps', App>;
export type AppDeployment = Always<Schemas['apps_deployment'], 'id' | 'phase' | 'created_at'>;
export type AppDeploymentList = ListAnswer<'apps_list_deployments', 'deployments', AppDeployment>;
export type AppSpecShape = Schemas['app_spec'];
export type AppPropose = Schemas['app_propose_response'];
/** Where a deployment's or an app's logs are: a URL streaming them live, or archived ones. */
export type AppLogs = Schemas['apps_get_logs_response'];
export type AppInstanceSize = Schemas['apps_instance_size'];
export type AppRegion = Schemas['apps_region'];
export type AppAlert = Schemas['app_alert'];
export type AppRollbackValidation = {
  valid?: boolean;
  error?: Schemas['app_rollback_validation_condition'];
  warnings?: Schemas['app_rollback_validation_condition'][];
};
