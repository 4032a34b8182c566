/**
 * Projects: create, list, get, update (PUT whole, PATCH part), delete, the default project (its
 * path `default` or its id), and a project's resources, listed and assigned by URN. The
 * platform's rules: every resource is in exactly one project, new ones in the default project
 * (families/projects.ts keeps only assignments, so that holds by construction); the default
 * project cannot be deleted, nor stop being the default except by making another one default; a
 * project that still holds resources cannot be deleted (412).
 */

import { randomUUID } from 'node:crypto';
import { PROJECT_BASE_ENVIRONMENT } from '@cloudcall/platform';
import type { StoredProject } from '../families/projects.js';
import { HttpError, listBody, notFound, type Route, type SandboxRequest, unprocessable } from '../http.js';
import { iso } from '../time.js';
import type { World } from '../world.js';

const ENVIRONMENTS: readonly string[] = PROJECT_BASE_ENVIRONMENT;
const URN = /^do:(dbaas|domain|droplet|floatingip|loadbalancer|space|volume|kubernetes|vpc):(.+)$/;

/** A resource of the account as projects see it: its URN, where it is read, and when it was made. */
interface ProjectResource {
  urn: string;
  path: string;
  created_ms: number;
}

/** Every resource of the account a project can hold, as URNs. */
function accountResources(world: World): ProjectResource[] {
  return [
    ...world.droplets.map((d) => ({
      urn: `do:droplet:${d.id}`,
      path: `/v2/droplets/${d.id}`,
      created_ms: Date.parse(d.created_at),
    })),
    ...world.volumes.map((v) => ({
      urn: `do:volume:${v.id}`,
      path: `/v2/volumes/${v.id}`,
      created_ms: v.created_ms,
    })),
    ...world.loadBalancers.map((lb) => ({
      urn: `do:loadbalancer:${lb.id}`,
      path: `/v2/load_balancers/${lb.id}`,
      created_ms: lb.created_ms,
    })),
    ...world.clusters.map((c) => ({
      urn: `do:dbaas:${c.id}`,
      path: `/v2/databases/${c.id}`,
      created_ms: c.created_ms,
    })),
    ...world.domains.map((d) => ({
      urn: `do:domain:${d.name}`,
      path: `/v2/domains/${d.name}`,
      created_ms: Date.parse(d.created_at),
    })),
    ...world.reservedIps
      .filter((r) => r.version === 4)
      .map((r) => ({
        urn: `do:floatingip:${r.ip}`,
        path: `/v2/floating_ips/${r.ip}`,
        created_ms: r.reserved_ms,
      })),
  ];
}

export function defaultProject(world: World): StoredProject {
  const found = world.projects.find((p) => p.is_default);
  if (!found) throw new Error('the sandbox world has no default project');
  return found;
}

/**
 * The id of the project a resource is in: the one it was assigned to, else the default. An
 * assignment older than the resource was made for an earlier one of the same URN (a domain or a
 * reserved IP deleted and made again), and no longer counts: a new resource lands in the default.
 */
export function projectOf(world: World, resource: { urn: string; created_ms: number }): string {
  const assignment = world.projectAssignments[resource.urn];
  const assigned =
    assignment && assignment.assigned_ms >= resource.created_ms ? assignment.project_id : undefined;
  return assigned && world.projects.some((p) => p.id === assigned) ? assigned : defaultProject(world).id;
}

/**
 * Puts a resource being created into the project a create's `project_id` names (the platform's
 * load balancer, database and reserved IP creates take one); none leaves it in the default.
 * Checks before anything changes: call it before the resource is stored.
 */
export function projectForCreate(world: World, value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || !world.projects.some((p) => p.id === value)) {
    throw unprocessable(`project_id: project ${JSON.stringify(value)} does not exist`);
  }
  return value;
}

/** A deleted resource leaves its project: a new one of the same URN (a domain's name, a reserved IP's address) starts in the default. */
export function dropFromProject(world: World, urn: string): void {
  delete world.projectAssignments[urn];
}

export function assignToProject(world: World, urn: string, projectId: string | undefined, now: number): void {
  if (projectId !== undefined) world.projectAssignments[urn] = { project_id: projectId, assigned_ms: now };
}

function projectView(world: World, project: StoredProject) {
  return {
    id: project.id,
    owner_uuid: world.account.uuid,
    owner_id: OWNER_ID,
    name: project.name,
    description: project.description,
    purpose: project.purpose,
    environment: project.environment ?? undefined,
    is_default: project.is_default,
    created_at: iso(project.created_ms),
    updated_at: iso(project.updated_ms),
  };
}

/** The account's numeric id, as projects show their owner. */
const OWNER_ID = 258_992;

function findProject(world: World, request: SandboxRequest): StoredProject {
  const id = request.params.id;
  if (id === 'default') return defaultProject(world);
  const project = world.projects.find((p) => p.id === id);
  if (!project) throw notFound();
  return project;
}

function resourceView(world: World, resource: ProjectResource, baseUrl: string, status: string) {
  const assignment = world.projectAssignments[resource.urn];
  const current = assignment && assignment.assigned_ms >= resource.created_ms ? assignment : undefined;
  return {
    urn: resource.urn,
    assigned_at: iso(current?.assigned_ms ?? resource.created_ms),
    links: { self: `${baseUrl}${resource.path}` },
    status,
  };
}

function text(
  body: Record<string, unknown>,
  field: string,
  max: number,
  required: boolean,
): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) {
    if (required) throw unprocessable(`${field} is required`);
    return undefined;
  }
  if (typeof value !== 'string') throw unprocessable(`${field} must be a string`);
  if (required && value.trim() === '') throw unprocessable(`${field} is required`);
  if (value.length > max) throw unprocessable(`${field} may have at most ${max} characters`);
  return value;
}

/**
 * Applies what an update body sets. `whole` (PUT) requires every field; PATCH changes those given,
 * and a field given as null is not given: it stays as it is, whichever field it is. The platform's
 * Go client updates a project with a PATCH that sends every field, null for each one the caller
 * left unset (godo's `updateProjectRequest` has pointer fields without `omitempty`, and its
 * `MarshalJSON` says a PATCH "allows partial attributes, so `null` values are OK"); doctl's
 * `projects update` sets only the flags given, so `--name` alone sends four nulls. Were a null to
 * clear its field, the platform's own CLI would wipe what its user never touched.
 */
function updateProject(
  world: World,
  project: StoredProject,
  sent: Record<string, unknown>,
  whole: boolean,
  now: number,
) {
  const body = whole ? sent : Object.fromEntries(Object.entries(sent).filter(([, value]) => value !== null));
  const name = text(body, 'name', 175, whole);
  const description = text(body, 'description', 255, whole);
  const purpose = text(body, 'purpose', 255, whole);
  const environment = body.environment;
  if (whole && environment === undefined) throw unprocessable('environment is required');
  if (environment != null && !ENVIRONMENTS.includes(String(environment))) {
    throw unprocessable(`environment must be one of ${ENVIRONMENTS.join(', ')}`);
  }
  const isDefault = body.is_default;
  if (whole && isDefault === undefined) throw unprocessable('is_default is required');
  if (isDefault != null && typeof isDefault !== 'boolean')
    throw unprocessable('is_default must be a boolean');
  if (isDefault === false && project.is_default) {
    throw unprocessable('the default project stays the default until another project is made the default');
  }
  if (name !== undefined) checkUniqueName(world, name, project);
  if (name !== undefined) project.name = name;
  if (description !== undefined) project.description = description;
  if (purpose !== undefined) project.purpose = purpose;
  if (environment !== undefined) project.environment = environment === null ? null : String(environment);
  if (isDefault === true && !project.is_default) {
    for (const other of world.projects) other.is_default = false;
    project.is_default = true;
  }
  project.updated_ms = now;
}

function checkUniqueName(world: World, name: string, self?: StoredProject) {
  if (world.projects.some((p) => p !== self && p.name.toLowerCase() === name.toLowerCase())) {
    throw unprocessable(`a project named ${name} already exists`);
  }
}

export const projectsRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/projects',
    handler: (req, world) => ({
      body: listBody('projects', world.projects, req, (p) => projectView(world, p)),
    }),
  },
  {
    method: 'POST',
    path: '/v2/projects',
    handler: (req, world) => {
      const name = text(req.body, 'name', 175, true) as string;
      const purpose = text(req.body, 'purpose', 255, true) as string;
      const description = text(req.body, 'description', 255, false) ?? '';
      const environment = req.body.environment;
      if (environment != null && !ENVIRONMENTS.includes(String(environment))) {
        throw unprocessable(`environment must be one of ${ENVIRONMENTS.join(', ')}`);
      }
      checkUniqueName(world, name);
      const project: StoredProject = {
        id: randomUUID(),
        name,
        description,
        purpose,
        environment: environment == null ? null : String(environment),
        is_default: false,
        created_ms: req.now,
        updated_ms: req.now,
      };
      world.projects.push(project);
      return { status: 201, body: { project: projectView(world, project) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/projects/{id}',
    handler: (req, world) => ({ body: { project: projectView(world, findProject(world, req)) } }),
  },
  ...(['PUT', 'PATCH'] as const).map(
    (method): Route => ({
      method,
      path: '/v2/projects/{id}',
      handler: (req, world) => {
        const project = findProject(world, req);
        updateProject(world, project, req.body, method === 'PUT', req.now);
        return { body: { project: projectView(world, project) } };
      },
    }),
  ),
  {
    method: 'DELETE',
    path: '/v2/projects/{id}',
    handler: (req, world) => {
      const project = findProject(world, req);
      if (project.is_default) throw unprocessable('the default project cannot be deleted');
      const held = accountResources(world).filter((r) => projectOf(world, r) === project.id);
      if (held.length) {
        throw new HttpError(
          412,
          'precondition_failed',
          `project ${project.name} holds ${held.length} resource(s) (such as ${held[0]?.urn}): move them to another project first`,
        );
      }
      world.projects = world.projects.filter((p) => p !== project);
      for (const [urn, assignment] of Object.entries(world.projectAssignments)) {
        if (assignment.project_id === project.id) delete world.projectAssignments[urn];
      }
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/v2/projects/{id}/resources',
    handler: (req, world) => {
      const project = findProject(world, req);
      const resources = accountResources(world).filter((r) => projectOf(world, r) === project.id);
      return {
        body: listBody('resources', resources, req, (r) => resourceView(world, r, req.baseUrl, 'ok')),
      };
    },
  },
  {
    method: 'POST',
    path: '/v2/projects/{id}/resources',
    handler: (req, world) => {
      const project = findProject(world, req);
      const urns = req.body.resources;
      if (!Array.isArray(urns) || urns.length === 0) {
        throw unprocessable('resources must be a non-empty array of URNs such as do:droplet:123');
      }
      for (const urn of urns) {
        if (typeof urn !== 'string' || !URN.test(urn)) {
          throw unprocessable(`resources: ${JSON.stringify(urn)} is not a URN such as do:droplet:123`);
        }
      }
      const existing = new Map(accountResources(world).map((r) => [r.urn, r]));
      const answered = [...new Set(urns as string[])].map((urn) => {
        const resource = existing.get(urn);
        // The platform answers each URN with its own status; one it cannot find is not_found.
        if (!resource) return { urn, status: 'not_found' };
        world.projectAssignments[urn] = { project_id: project.id, assigned_ms: req.now };
        return resourceView(world, resource, req.baseUrl, 'assigned');
      });
      return { body: { resources: answered } };
    },
  },
];
