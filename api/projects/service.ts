import type { Clock } from '../../core/index.js'
import type { EnvironmentRow, PageRequest, ProjectRow, Repos } from '../../db/index.js'
import { ApiError } from '../http/errors.js'
import type { Principal } from '../security/principal.js'

const NAMES = { dev: 'Development', staging: 'Staging', prod: 'Production' } as const
const iso = (ms: number) => new Date(ms).toISOString()

export class ProjectService {
  constructor(
    private readonly repos: Repos,
    private readonly clock: Clock,
  ) {}

  list(p: Principal, at: PageRequest) {
    const page = this.repos.projects.page(p.organizationId, at)
    return { items: page.items.map((row) => this.response(p, row)), total: page.total }
  }

  create(p: Principal, name: string) {
    return this.response(p, this.repos.projects.create(p.organizationId, name, this.clock.now()))
  }

  environments(p: Principal, projectId: string) {
    const project = this.repos.projects.get(p.organizationId, projectId)
    if (!project) throw new ApiError('not_found')
    return this.envs(p, project)
  }

  private envs(p: Principal, project: ProjectRow) {
    const defaultSlug = this.repos.organizations.get(p.organizationId)!.default_environment
    return this.repos.projects.environments(p.organizationId, project.id).map((e: EnvironmentRow) => ({
      id: e.id,
      slug: e.slug,
      name: NAMES[e.slug],
      project_id: e.project_id,
      is_default: project.is_default === 1 && e.slug === defaultSlug,
      created_at: iso(e.created_at),
    }))
  }

  private response(p: Principal, row: ProjectRow) {
    return { id: row.id, name: row.name, is_default: row.is_default === 1, environments: this.envs(p, row), created_at: iso(row.created_at) }
  }
}
