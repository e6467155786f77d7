/**
 * The workflows of the loaded metadata: every `<name>.workflow.yml` the registry holds, validated.
 * One problem or many: one MetadataError naming each file, key path and line, as the kernel's own
 * metadata errors do. Disabled workflows are validated as well and returned with `enabled: false`.
 */
import type { Kernel } from '../../../kernel';
import type { Workflow } from '../types';
import { DEFAULT_WORKFLOW_SETTINGS, parseWorkflow, type WorkflowSettings } from './parse';
import { WorkflowProblems } from './problems';

export interface LoadWorkflowsOptions {
  /** Where `${NAME}` in webhook urls, headers and secrets is looked up; default process.env. */
  env?: Record<string, string | undefined>;
}

export function loadWorkflows(
  kernel: Kernel,
  settings: WorkflowSettings = DEFAULT_WORKFLOW_SETTINGS,
  options: LoadWorkflowsOptions = {},
): Workflow[] {
  const registry = kernel.registry;
  const problems = new WorkflowProblems();
  const ctx = { object: (name: string) => registry.object(name), settings, env: options.env ?? process.env };
  const workflows: Workflow[] = [];
  for (const entry of registry.entries('workflow')) {
    const file = entry.source ?? `${entry.id}.workflow.yml`;
    const workflow = parseWorkflow(entry.id, entry.content, entry.source, ctx, problems.for(file));
    if (workflow) workflows.push(workflow);
  }
  problems.throwIfAny();
  return workflows;
}
