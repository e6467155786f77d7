/**
 * The server driven through Apollo Client core (v4: ApolloClient, HttpLink, InMemoryCache; no
 * React) the way an application would: nested relationships both ways with variables, a mutation
 * whose nested read-back lands in the normalized cache, and the engine's refusals as GraphQL
 * errors with their code.
 */
import { ApolloClient, CombinedGraphQLErrors, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { expect } from 'chai';
import { USERS, type TestServer } from '../../helpers/server';
import { as, startGraphQLServer } from './helpers';

describe('GraphQL through Apollo Client', () => {
  let s: TestServer;
  before(async () => {
    s = await startGraphQLServer();
  });
  after(async () => {
    await s?.stop();
  });

  const clientAs = (user: object) =>
    new ApolloClient({
      link: new HttpLink({ uri: `${s.url}/api/graphql`, headers: as(user as never), fetch }),
      cache: new InMemoryCache(),
    });

  const PROJECTS = gql`
    query ProjectsWithTasks($top: Int!, $status: String) {
      projectList(sort: "name") {
        id
        name
        account_record {
          id
          name
        }
        tasks(top: $top, sort: "title", filters: $status) {
          id
          title
          project_record {
            id
            name
          }
        }
        tasks_count(filters: $status)
      }
    }
  `;

  it('reads nested relationships both ways with variables', async () => {
    const client = clientAs(USERS.admin);
    const { data, error } = await client.query({ query: PROJECTS, variables: { top: 1, status: '{"status": "todo"}' } });
    expect(error).to.equal(undefined);
    expect(
      (data as any).projectList.map((p: any) => [p.name, p.account_record.name, p.tasks.map((t: any) => t.title), p.tasks_count]),
    ).to.deep.equal([
      ['Apollo Website Relaunch', 'Acme Corporation', ['Plan the launch'], 1],
      ['Gemini Plant Monitoring', 'Globex Industries', ['Kick-off meeting with Globex'], 1],
      ['Mercury Ledger Migration', 'Initech', [], 0],
    ]);
    expect((data as any).projectList[0].tasks[0].project_record).to.deep.equal({
      __typename: 'Project',
      id: 'prj-apollo',
      name: 'Apollo Website Relaunch',
    });
    // Other variables, other rows: the cache keeps each argument set apart.
    const all = await client.query({ query: PROJECTS, variables: { top: 5 } });
    expect((all.data as any).projectList.map((p: any) => p.tasks_count)).to.deep.equal([3, 2, 1]);
    // The normalized cache holds one Project entry, reached from both directions.
    const cached = client.cache.extract() as Record<string, any>;
    expect(cached['Project:prj-apollo'].name).to.equal('Apollo Website Relaunch');
    expect(cached['Task:tsk-apollo-launch'].project_record).to.deep.equal({ __ref: 'Project:prj-apollo' });
  });

  it('writes through a mutation whose nested read-back lands in the cache', async () => {
    const client = clientAs(USERS.admin);
    const { data } = await client.mutate({
      mutation: gql`
        mutation AddMilestone($input: MilestoneInput!) {
          createMilestone(input: $input) {
            id
            name
            project_record {
              id
              milestones(sort: "name") {
                id
                name
              }
              milestones_count
            }
          }
        }
      `,
      variables: { input: { name: 'Kick-off', project: 'prj-gemini', due_on: '2025-06-02' } },
    });
    const created = (data as any).createMilestone;
    expect(created.project_record.milestones.map((m: any) => m.name)).to.deep.equal(['Kick-off']);
    expect(created.project_record.milestones_count).to.equal(1);
    const cached = client.cache.extract() as Record<string, any>;
    expect(cached[`Milestone:${created.id}`].name).to.equal('Kick-off');
  });

  it("answers with the caller's permissions: FORBIDDEN nested, record scope below", async () => {
    const client = clientAs(USERS.alice);
    const refused = await client.query({
      query: gql`
        query {
          projectList {
            id
            expenses {
              id
              amount
            }
          }
        }
      `,
      errorPolicy: 'all',
    });
    expect(CombinedGraphQLErrors.is(refused.error)).to.equal(true);
    expect((refused.error as CombinedGraphQLErrors).errors[0].extensions?.code).to.equal('FORBIDDEN');
    const { data } = await client.query({ query: PROJECTS, variables: { top: 10 } });
    expect((data as any).projectList.map((p: any) => [p.id, p.tasks_count])).to.deep.equal([
      ['prj-apollo', 2],
      ['prj-mercury', 1],
    ]);
  });
});
