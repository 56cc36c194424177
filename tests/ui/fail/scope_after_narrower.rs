use prompt_core::prompt_layer;

#[prompt_layer(priority = 100, stability = Stable, scope = User, paths = [Cached], text = "Answer in German.")]
pub struct UserNotes;

// Everyone on the repository shares the project's docs; ordering them after
// one person's notes would keep the team from sharing them.
#[prompt_layer(priority = 200, stability = Stable, scope = Project, paths = [Cached], text = "Run make check.", after = [UserNotes])]
pub struct ProjectDocs;

fn main() {}
