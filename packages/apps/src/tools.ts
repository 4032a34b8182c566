/**
 * The apps family: App Platform. An app is made from a spec (checked here first, then by the
 * platform), and every change of spec, manual deploy, restart or rollback is a deployment that
 * builds and goes live over minutes (`wait` with Kind app-deployment, or the CLI's `--wait`).
 * Logs are URLs the platform gives (live while the part asked for runs, archived after).
 */
import { annotations, defineTool, returns, sendRequest } from '@cloudcall/core';
import { LIMITS, pageArgs, pageQuery, slug, uuid } from '@cloudcall/core/internal';
import { z } from 'zod';
import { APP_NAME, AppSpec } from './spec.js';
import type {
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
} from './types.js';

/** App lists page by 20, as the platform does. */
const page = pageArgs(20);

const AppID = uuid('App id (app-list)');
const DeploymentID = uuid('Deployment id (app-list-deployments)');
const ComponentName = z
  .string()
  .regex(APP_NAME, 'expected a component name from the app spec, such as "web"')
  .describe('Component name');

/** Waiting for a deployment a tool started: the app's id from an argument, the deployment's from the answer. */
const deploymentWait = (idArgument: string) =>
  ({ kind: 'app-deployment', idArgument, namePaths: ['deployment.id'] }) as const;
/** An app's answer names the deployment it started as pending (the platform) or in progress. */
const APP_DEPLOYMENT_PATHS = ['app.pending_deployment.id', 'app.in_progress_deployment.id'];

const LOG_TYPES = ['BUILD', 'DEPLOY', 'RUN', 'RUN_RESTARTED'] as const;

/** The four logs operations, by what the call names: a deployment, a component, both or neither. */
const LOGS_PATHS = {
  both: '/v2/apps/{AppID}/deployments/{DeploymentID}/components/{Component}/logs',
  deployment: '/v2/apps/{AppID}/deployments/{DeploymentID}/logs',
  component: '/v2/apps/{AppID}/components/{Component}/logs',
  app: '/v2/apps/{AppID}/logs',
} as const;

const rollbackArgs = {
  AppID,
  DeploymentID: uuid('Deployment to go back to (app-list-deployments)'),
};

export const appsTools = [
  defineTool({
    name: 'app-create',
    family: 'apps',
    beyondSpec: true,
    title: 'Create app',
    description: 'Create an app from a spec; it deploys.',
    details:
      'Creates an App Platform app from its spec (name, region, services, static_sites, workers, jobs, databases, domains, envs...) and starts its first deployment, which builds and goes live in minutes: wait with Kind app-deployment (the app id and the deployment id as Name). The spec is checked before sending; app-validate-spec asks the platform too.',
    input: z.strictObject({
      Spec: AppSpec,
      ProjectID: uuid('Project (project-list); default project if unset').optional(),
    }),
    annotations: annotations.create,
    wait: { kind: 'app-deployment', idPaths: ['app.id'], namePaths: APP_DEPLOYMENT_PATHS },
    request: { method: 'POST', path: '/v2/apps', body: { spec: 'Spec', project_id: 'ProjectID' } },
    result: returns<{ app: App }>(),
  }),
  defineTool({
    name: 'app-list',
    family: 'apps',
    beyondSpec: true,
    title: 'List apps',
    description: 'Apps and their deployments.',
    details:
      'Lists the App Platform apps: spec, default ingress, live URL, and the active and in-progress deployments. Paginated.',
    input: z.strictObject({
      ...page,
      WithProjects: z.boolean().optional().describe('Add each project_id'),
    }),
    annotations: annotations.read,
    request: {
      method: 'GET',
      path: '/v2/apps',
      query: { ...pageQuery, with_projects: 'WithProjects' },
    },
    result: returns<AppList>(),
  }),
  defineTool({
    name: 'app-get',
    family: 'apps',
    beyondSpec: true,
    title: 'Get app',
    description: 'One app: spec, URL, deployments.',
    details:
      'Shows one app: its spec, default ingress and live URL, region, tier, and its active, in-progress and pending deployments.',
    input: z.strictObject({ ID: AppID }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/apps/{ID}' },
    result: returns<{ app: App }>(),
  }),
  defineTool({
    name: 'app-update',
    family: 'apps',
    beyondSpec: true,
    title: 'Update app',
    description: 'Replace an app spec; it redeploys.',
    details:
      "Replaces an app's spec with the one given (whole: components left out are removed; app-get shows the current one) and starts a deployment of it. RebuildAll rebuilds every component from the newest source even where nothing changed.",
    input: z.strictObject({
      ID: AppID,
      Spec: AppSpec,
      RebuildAll: z.boolean().optional().describe('Rebuild all components'),
    }),
    // The whole spec is replaced: components left out are removed.
    annotations: annotations.destructive,
    wait: { kind: 'app-deployment', idArgument: 'ID', namePaths: APP_DEPLOYMENT_PATHS },
    request: {
      method: 'PUT',
      path: '/v2/apps/{ID}',
      body: { spec: 'Spec', update_all_source_versions: 'RebuildAll' },
    },
    result: returns<{ app: App }>(),
  }),
  defineTool({
    name: 'app-delete',
    family: 'apps',
    beyondSpec: true,
    title: 'Delete app',
    description: 'Delete an app and its deployments.',
    details:
      'Deletes an app for good: its components stop serving, its deployments, logs and default ingress go. Databases it merely attaches (cluster_name) stay.',
    input: z.strictObject({ ID: AppID }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/apps/{ID}' },
    result: returns<{ id: string }>(),
  }),
  defineTool({
    name: 'app-validate-spec',
    family: 'apps',
    beyondSpec: true,
    title: 'Validate app spec',
    description: 'Check a spec with the platform; nothing changes.',
    details:
      'Asks the platform whether it would take a spec, without creating or changing anything: the first error it finds, whether the name is free (with a suggestion if not), whether the app is static, and the monthly cost. AppID checks it as an update of that app.',
    input: z.strictObject({
      Spec: AppSpec,
      AppID: uuid('App it would update (app-list)').optional(),
    }),
    annotations: annotations.update,
    request: { method: 'POST', path: '/v2/apps/propose', body: { spec: 'Spec', app_id: 'AppID' } },
    result: returns<AppPropose>(),
  }),
  defineTool({
    name: 'app-create-deployment',
    family: 'apps',
    beyondSpec: true,
    title: 'Deploy app',
    description: "Deploy an app's current spec again.",
    details:
      "Starts a deployment of the app's spec as it is (a new deployment replaces one in progress). ForceBuild rebuilds even where no source changed.",
    input: z.strictObject({
      AppID,
      ForceBuild: z.boolean().optional().describe('Rebuild unchanged sources'),
    }),
    annotations: annotations.action,
    wait: deploymentWait('AppID'),
    request: {
      method: 'POST',
      path: '/v2/apps/{AppID}/deployments',
      body: { force_build: 'ForceBuild' },
    },
    result: returns<{ deployment: AppDeployment }>(),
  }),
  defineTool({
    name: 'app-list-deployments',
    family: 'apps',
    beyondSpec: true,
    title: 'List app deployments',
    description: "An app's deployments, newest first.",
    details: "Lists an app's deployments, newest first: cause, phase, progress. Paginated.",
    input: z.strictObject({ AppID, ...page }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/apps/{AppID}/deployments', query: pageQuery },
    result: returns<AppDeploymentList>(),
  }),
  defineTool({
    name: 'app-get-deployment',
    family: 'apps',
    beyondSpec: true,
    title: 'Get app deployment',
    description: 'One deployment: phase, progress.',
    details:
      'Shows one deployment of an app: its phase (PENDING_BUILD, BUILDING, PENDING_DEPLOY, DEPLOYING, ACTIVE, SUPERSEDED, ERROR, CANCELED), its progress steps and the spec it deploys.',
    input: z.strictObject({ AppID, DeploymentID }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/apps/{AppID}/deployments/{DeploymentID}' },
    result: returns<{ deployment: AppDeployment }>(),
  }),
  defineTool({
    name: 'app-cancel-deployment',
    family: 'apps',
    beyondSpec: true,
    title: 'Cancel app deployment',
    description: 'Stop a deployment in progress.',
    details:
      'Cancels a deployment that is not live yet; the app keeps serving its active deployment. One that is ACTIVE, SUPERSEDED or already CANCELED is refused.',
    input: z.strictObject({ AppID, DeploymentID }),
    annotations: annotations.action,
    request: { method: 'POST', path: '/v2/apps/{AppID}/deployments/{DeploymentID}/cancel' },
    result: returns<{ deployment: AppDeployment }>(),
  }),
  defineTool({
    name: 'app-restart',
    family: 'apps',
    beyondSpec: true,
    title: 'Restart app',
    description: "Restart an app's services and workers.",
    details:
      'Redeploys the live deployment without a build, restarting its services and workers (or only those named in Components).',
    input: z.strictObject({
      AppID,
      Components: z.array(ComponentName).max(100).optional().describe('Only these'),
    }),
    annotations: annotations.action,
    wait: deploymentWait('AppID'),
    request: { method: 'POST', path: '/v2/apps/{AppID}/restart', body: { components: 'Components' } },
    result: returns<{ deployment: AppDeployment }>(),
  }),
  defineTool({
    name: 'app-get-logs',
    family: 'apps',
    beyondSpec: true,
    title: 'Get app log URLs',
    description: 'URLs of build, deploy or run logs.',
    details:
      'Answers where an app\'s logs are, not their text: live_url while that part runs (a WebSocket, wss or ws, sending each line as {"data": LINE}; with Follow it stays open as long as the part runs), else historic_urls (plain text files). Each URL carries a token of its own: read it without the API token. Type BUILD, DEPLOY, RUN (default) or RUN_RESTARTED; without DeploymentID, the active deployment; without Component, all components. The CLI\'s `apps logs` prints the text.',
    input: z.strictObject({
      AppID,
      DeploymentID: uuid('Deployment (app-list-deployments); default active').optional(),
      Component: ComponentName.optional(),
      Type: z
        .preprocess((value) => (typeof value === 'string' ? value.toUpperCase() : value), z.enum(LOG_TYPES))
        .default('RUN')
        .describe('Which logs'),
      Follow: z.boolean().optional().describe('Stream new lines'),
    }),
    annotations: annotations.read,
    handler: (args, context) => {
      const path =
        LOGS_PATHS[
          args.DeploymentID && args.Component
            ? 'both'
            : args.DeploymentID
              ? 'deployment'
              : args.Component
                ? 'component'
                : 'app'
        ];
      return sendRequest<AppLogs>(
        { method: 'GET', path, query: { type: 'Type', follow: 'Follow' } },
        args,
        context,
      );
    },
    result: returns<AppLogs>(),
  }),
  defineTool({
    name: 'app-validate-rollback',
    family: 'apps',
    beyondSpec: true,
    title: 'Validate app rollback',
    description: 'Check a rollback first; nothing changes.',
    details:
      'Asks whether the app can roll back to an earlier deployment (one that was live, among its last ten), and with which warnings; nothing changes.',
    input: z.strictObject(rollbackArgs),
    annotations: annotations.update,
    request: {
      method: 'POST',
      path: '/v2/apps/{AppID}/rollback/validate',
      body: { deployment_id: 'DeploymentID' },
    },
    result: returns<AppRollbackValidation>(),
  }),
  defineTool({
    name: 'app-rollback',
    family: 'apps',
    beyondSpec: true,
    title: 'Roll back app',
    description: 'Redeploy an earlier deployment.',
    details:
      'Deploys an earlier deployment again (its spec and, for most components, its build) and pins the app to it: no other deployment starts until app-commit-rollback keeps it or app-revert-rollback undoes it. SkipPin commits it at once.',
    input: z.strictObject({
      ...rollbackArgs,
      SkipPin: z.boolean().optional().describe('Commit at once'),
    }),
    annotations: annotations.action,
    wait: deploymentWait('AppID'),
    request: {
      method: 'POST',
      path: '/v2/apps/{AppID}/rollback',
      body: { deployment_id: 'DeploymentID', skip_pin: 'SkipPin' },
    },
    result: returns<{ deployment: AppDeployment }>(),
  }),
  defineTool({
    name: 'app-commit-rollback',
    family: 'apps',
    beyondSpec: true,
    title: 'Commit app rollback',
    description: 'Keep a rollback; unpin the app.',
    details: 'Keeps the rollback in progress or done, and lets the app take new deployments again.',
    input: z.strictObject({ AppID }),
    annotations: annotations.action,
    request: { method: 'POST', path: '/v2/apps/{AppID}/rollback/commit', noResponseBody: true },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'app-revert-rollback',
    family: 'apps',
    beyondSpec: true,
    title: 'Revert app rollback',
    description: 'Undo a rollback; redeploys.',
    details: 'Undoes a rollback not yet committed: deploys the spec from before it again and unpins the app.',
    input: z.strictObject({ AppID }),
    annotations: annotations.action,
    wait: deploymentWait('AppID'),
    request: { method: 'POST', path: '/v2/apps/{AppID}/rollback/revert' },
    result: returns<{ deployment: AppDeployment }>(),
  }),
  defineTool({
    name: 'app-list-alerts',
    family: 'apps',
    beyondSpec: true,
    title: 'List app alerts',
    description: "An app's alerts and destinations.",
    details:
      "Lists an app's alerts (the spec's alerts and its components'), each with its rule and where it is sent: emails and Slack webhooks.",
    input: z.strictObject({ AppID }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/apps/{AppID}/alerts' },
    result: returns<{ alerts: AppAlert[] }>(),
  }),
  defineTool({
    name: 'app-update-alert-destinations',
    family: 'apps',
    beyondSpec: true,
    title: 'Set app alert destinations',
    description: 'Set where an app alert is sent.',
    details:
      "Sets where an alert (app-list-alerts) is sent, replacing its destinations: emails of the team's users and Slack incoming webhooks.",
    input: z.strictObject({
      AppID,
      AlertID: uuid('Alert id (app-list-alerts)'),
      Emails: z.array(z.email().max(LIMITS.name)).max(50).default([]).describe('Team users’ emails'),
      SlackWebhooks: z
        .array(
          z.strictObject({
            url: z
              .url({ protocol: /^https$/ })
              .max(LIMITS.url)
              .describe('Incoming webhook URL'),
            channel: z.string().max(LIMITS.name).optional().describe('Channel'),
          }),
        )
        .max(50)
        .default([])
        .describe('Slack webhooks'),
    }),
    annotations: annotations.update,
    request: {
      method: 'POST',
      path: '/v2/apps/{AppID}/alerts/{AlertID}/destinations',
      body: { emails: 'Emails', slack_webhooks: 'SlackWebhooks' },
    },
    result: returns<{ alert: AppAlert }>(),
  }),
  defineTool({
    name: 'app-list-instance-sizes',
    family: 'apps',
    beyondSpec: true,
    title: 'List app instance sizes',
    description: 'Instance sizes and prices.',
    details:
      "Lists the instance sizes services, workers and jobs run on (a spec's instance_size_slug): CPUs, memory, tier and monthly price.",
    input: z.strictObject({}),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/apps/tiers/instance_sizes' },
    result: returns<{ instance_sizes: AppInstanceSize[] }>(),
  }),
  defineTool({
    name: 'app-get-instance-size',
    family: 'apps',
    beyondSpec: true,
    title: 'Get app instance size',
    description: 'One instance size.',
    details: 'Shows one instance size by slug: CPUs, memory, tier, price, bandwidth allowance.',
    input: z.strictObject({ Slug: slug('Instance size', 'apps-s-1vcpu-1gb') }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/apps/tiers/instance_sizes/{Slug}' },
    result: returns<{ instance_size: AppInstanceSize }>(),
  }),
  defineTool({
    name: 'app-list-regions',
    family: 'apps',
    beyondSpec: true,
    title: 'List app regions',
    description: 'Regions App Platform runs in.',
    details:
      "Lists App Platform's regions: the slug a spec's region takes (such as nyc), and its data centers.",
    input: z.strictObject({}),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/apps/regions' },
    result: returns<{ regions: AppRegion[] }>(),
  }),
] as const;
