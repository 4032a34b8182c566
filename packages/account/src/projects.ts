/**
 * Projects: groups of resources of any family (VMs, volumes, load balancers, database clusters,
 * domains, reserved IPs), each resource in exactly one, new ones in the account's default project.
 * They live in the account family because they organise the whole account rather than serving
 * one family, and need no other family's tools: a resource is named by its URN
 * (`do:droplet:123`), which any family's answer gives the parts of.
 */
import { annotations, defineTool, returns } from '@cloudcall/core';
import { LIMITS, pageArgs, pageQuery, text, uuid } from '@cloudcall/core/internal';
import { PROJECT_BASE_ENVIRONMENT } from '@cloudcall/platform';
import { z } from 'zod';
import type { Project, ProjectList, ProjectResourceList, ProjectResources } from './types.js';

const page = pageArgs(30);
const ProjectId = uuid('Project id');
const Name = text('Project name', { max: 175 });
const Purpose = text('Purpose, e.g. "Web Application"', { max: 255 });
const Description = text('Description', { max: 255 });
const Environment = z.enum(PROJECT_BASE_ENVIRONMENT).describe('Environment');
/** A resource's URN as the platform names it for projects. */
const Urn = z
  .string()
  .max(LIMITS.short)
  .regex(
    /^do:(dbaas|domain|droplet|floatingip|loadbalancer|space|volume|kubernetes|vpc):[^\s]+$/,
    'expected a URN such as do:droplet:123, do:volume:<id>, do:loadbalancer:<id>, do:dbaas:<id>, do:domain:<name>, do:floatingip:<ip>',
  );

/** What an update may change: every field optional, at least one given. */
const changes = {
  Name: Name.optional(),
  Description: Description.optional(),
  Purpose: Purpose.optional(),
  Environment: Environment.optional(),
};
const changesBody = {
  name: 'Name',
  description: 'Description',
  purpose: 'Purpose',
  environment: 'Environment',
} as const;
const atLeastOne = (keys: readonly string[]) => (args: Record<string, unknown>, context: z.RefinementCtx) => {
  if (keys.every((key) => args[key] === undefined)) {
    context.addIssue({
      code: 'custom',
      path: keys.slice(0, 1),
      message: `is required when none of ${keys.slice(1).join(', ')} is given: a change needs one`,
    });
  }
};

export const projectTools = [
  defineTool({
    name: 'project-list',
    family: 'account',
    beyondSpec: true,
    title: 'List projects',
    description: 'List the projects.',
    details:
      'Lists the projects of the account; the default one (where new resources go) has is_default. Paginated.',
    input: z.strictObject({ ...page }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/projects', query: pageQuery },
    result: returns<ProjectList>(),
  }),
  defineTool({
    name: 'project-get',
    family: 'account',
    beyondSpec: true,
    title: 'Get project',
    description: 'One project by id.',
    details: 'Shows one project: name, purpose, environment, description, and whether it is the default.',
    input: z.strictObject({ ID: ProjectId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/projects/{ID}' },
    result: returns<{ project: Project }>(),
  }),
  defineTool({
    name: 'project-get-default',
    family: 'account',
    beyondSpec: true,
    title: 'Get default project',
    description: 'The default project.',
    details: 'Shows the default project: the one new resources are put in unless their create names another.',
    input: z.strictObject({}),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/projects/default' },
    result: returns<{ project: Project }>(),
  }),
  defineTool({
    name: 'project-create',
    family: 'account',
    beyondSpec: true,
    title: 'Create project',
    description: 'Create a project.',
    details:
      'Creates a project with a unique Name and a Purpose (such as "Web Application" or "Service or API"), optionally a Description and an Environment. It starts empty; project-assign-resources moves resources into it.',
    input: z.strictObject({
      Name,
      Purpose,
      Description: Description.optional(),
      Environment: Environment.optional(),
    }),
    annotations: annotations.create,
    request: { method: 'POST', path: '/v2/projects', body: changesBody },
    result: returns<{ project: Project }>(),
  }),
  defineTool({
    name: 'project-update',
    family: 'account',
    beyondSpec: true,
    title: 'Update project',
    description: 'Change a project; IsDefault makes it the default.',
    details:
      'Changes the fields given of a project and keeps the others. IsDefault true makes it the default project (the previous default stops being it); a default project stops being the default only that way.',
    input: z
      .strictObject({
        ID: ProjectId,
        ...changes,
        IsDefault: z.literal(true).optional().describe('Make it the default'),
      })
      .superRefine(atLeastOne(['Name', 'Description', 'Purpose', 'Environment', 'IsDefault'])),
    annotations: annotations.update,
    request: {
      method: 'PATCH',
      path: '/v2/projects/{ID}',
      body: { ...changesBody, is_default: 'IsDefault' },
    },
    result: returns<{ project: Project }>(),
  }),
  defineTool({
    name: 'project-update-default',
    family: 'account',
    beyondSpec: true,
    title: 'Update default project',
    description: 'Change the default project.',
    details: 'Changes the fields given of the default project and keeps the others.',
    input: z.strictObject(changes).superRefine(atLeastOne(['Name', 'Description', 'Purpose', 'Environment'])),
    annotations: annotations.update,
    request: { method: 'PATCH', path: '/v2/projects/default', body: changesBody },
    result: returns<{ project: Project }>(),
  }),
  defineTool({
    name: 'project-delete',
    family: 'account',
    beyondSpec: true,
    title: 'Delete project',
    description: 'Delete an empty project.',
    details:
      'Deletes a project. It must hold no resources (move them with project-assign-resources first), and the default project cannot be deleted.',
    input: z.strictObject({ ID: ProjectId }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/projects/{ID}' },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'project-list-resources',
    family: 'account',
    beyondSpec: true,
    title: 'List project resources',
    description: "A project's resources, by URN.",
    details:
      'Lists the resources in a project, each by URN (do:droplet:123, do:volume:<id>...), with when it was assigned. Paginated.',
    input: z.strictObject({ ID: ProjectId, ...page }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/projects/{ID}/resources', query: pageQuery },
    result: returns<ProjectResourceList>(),
  }),
  defineTool({
    name: 'project-assign-resources',
    family: 'account',
    beyondSpec: true,
    title: 'Assign resources to project',
    description: 'Move resources (URNs) into a project.',
    details:
      'Moves resources into a project, out of the one they were in (a resource is in one project). Each is named by URN: do:droplet:<id>, do:volume:<id>, do:loadbalancer:<id>, do:dbaas:<id>, do:domain:<name>, do:floatingip:<ip>. The answer gives each one a status: assigned, or not_found.',
    input: z.strictObject({
      ID: ProjectId,
      Resources: z.array(Urn).min(1).max(100).describe('Resource URNs'),
    }),
    annotations: annotations.update,
    request: { method: 'POST', path: '/v2/projects/{ID}/resources', body: { resources: 'Resources' } },
    result: returns<ProjectResources>(),
  }),
] as const;
