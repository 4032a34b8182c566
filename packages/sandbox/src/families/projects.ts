/**
 * Project state of the sandbox world. A project groups resources of any family; each resource is
 * in exactly one project. Only assignments are stored (resource URN -> project): a resource with
 * none is in the default project, which is how new resources land there without every family's
 * create knowing about projects, and a deleted resource drops out of its project by itself (the
 * project's list is built from the resources that exist).
 */
import { randomUUID } from 'node:crypto';

export interface StoredProject {
  id: string;
  name: string;
  description: string;
  purpose: string;
  environment: string | null;
  is_default: boolean;
  created_ms: number;
  updated_ms: number;
}

export interface ProjectsState {
  projects: StoredProject[];
  /** Resource URN -> the project it was assigned to, and when. */
  projectAssignments: Record<string, { project_id: string; assigned_ms: number }>;
}

/** Every account starts with one project, its default. */
export function seedProjectsState(now: number = Date.now()): ProjectsState {
  return {
    projects: [
      {
        id: randomUUID(),
        name: 'first-project',
        description: 'Update your project information under Settings',
        purpose: 'Just trying out DigitalOcean',
        environment: 'Development',
        is_default: true,
        created_ms: now,
        updated_ms: now,
      },
    ],
    projectAssignments: {},
  };
}
