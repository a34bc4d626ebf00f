// Long-lived collaborators handed to every handler.
export interface Services {
  version: string;
  /** called after a project's models change, so matching caches drop that project */
  modelsChanged(projectId: string): void;
}
