//! The workspace options every subcommand that renders shares, and how they
//! become an [`Agent`] and its [`Options`].

use std::collections::BTreeMap;
use std::path::PathBuf;

use prompt_checks::contract::Scenario;
use prompt_core::{AssemblyPath, Pipeline, PromptMode};
use serde::{Deserialize, Serialize};

use super::agent::{Agent, Options, Rendered};
use super::formats::DeliveryArgs;
use super::outcome::CliError;
use crate::{RuntimeFacts, SubAgent};

/// Where the agent works, and which pipeline renders for it.
#[derive(clap::Args, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WorkspaceArgs {
    /// The workspace the agent works in (default: the current directory).
    #[arg(long)]
    workspace: Option<PathBuf>,
    /// The working directory, at or below the workspace (default: the workspace).
    #[arg(long)]
    cwd: Option<PathBuf>,
    /// The app name: memory, skills and overrides live in `.<app>` folders
    /// (`--app ferris` reads `.ferris/` and `~/.ferris/`). A plain name of at
    /// most 64 characters, with no leading dot.
    #[arg(long, default_value = "agent", value_parser = super::args::APP)]
    #[serde(deserialize_with = "super::args::recorded::app")]
    app: String,
    /// The user's home, where `~/.<app>/` is read (default: $HOME).
    #[arg(long)]
    home: Option<PathBuf>,
    /// Also read AGENTS.md / CLAUDE.md in each directory from the workspace down to `--cwd`.
    #[arg(long)]
    nested_docs: bool,
    /// The folder `{% include "@shared/..." %}` reads from. Inside the
    /// workspace it may not lead out of it through a symlink.
    #[arg(long)]
    shared: Option<PathBuf>,
    /// A directory searched for `system-prompt.md` (repeatable, in order).
    /// Inside the workspace it may not lead out of it through a symlink.
    #[arg(long = "prompt-path")]
    prompt_path: Vec<PathBuf>,
    /// A sub-agent, as `NAME=DESCRIPTION` (repeatable); enables the
    /// coordinator layer (and `--agent recursive`'s coordinator section).
    #[arg(long = "sub-agent", value_parser = parse_sub_agent)]
    #[serde(with = "given::sub_agents")]
    sub_agents: Vec<SubAgent>,
    /// The pipeline to use, of those linked into this binary (default: the
    /// one the binary names as its default, else `default`).
    #[arg(long, conflicts_with = "agent")]
    #[serde(serialize_with = "given::pipeline")]
    pipeline: Option<String>,
    /// An agent plugged into this binary: its pipeline and its own loading,
    /// over its built-in workspace unless `--workspace` is given.
    #[arg(long)]
    agent: Option<String>,
    /// An agent's own setting, as `KEY=VALUE` (repeatable); an unknown key
    /// lists the agent's.
    #[arg(long = "set", value_name = "KEY=VALUE", requires = "agent", value_parser = parse_setting)]
    #[serde(with = "given::settings")]
    settings: Vec<(String, String)>,
    /// With `--agent` and `--workspace DIR`: DIR is laid out like the
    /// built-in fixture (recursive: `DIR/workspace` is the workspace and
    /// `DIR/home` the user's home). Without it DIR is the workspace, whatever
    /// folders it holds.
    #[arg(long, requires = "agent")]
    fixture: bool,
    /// The date to state, instead of today's (for reproducible output); one
    /// line of at most 64 visible characters.
    #[arg(long, value_parser = super::args::DATE)]
    #[serde(deserialize_with = "super::args::recorded::date")]
    pub(crate) date: Option<String>,
    /// The model name to state in the prompt; also the model of `render
    /// --format anthropic|openai|bedrock` requests and of `prompt cache`
    /// (defaults there: claude-sonnet-4-5, gpt-5,
    /// anthropic.claude-sonnet-4-5-20250929-v1:0); one line of at most 128
    /// visible characters.
    #[arg(long, value_parser = super::args::MODEL)]
    #[serde(deserialize_with = "super::args::recorded::model")]
    pub(crate) model: Option<String>,
}

/// The pipeline named by `--pipeline`, loaded from the standard sources.
struct Standard<'a>(&'a str);

impl Agent for Standard<'_> {
    fn name(&self) -> &str {
        "standard"
    }

    fn pipeline(&self) -> &str {
        self.0
    }
}

/// The agent and options a command line chose.
pub(crate) struct Chosen<'a> {
    agent: Box<dyn Agent + 'a>,
    /// Whether `--agent` chose it (a plug-in), not `--pipeline`.
    pub(crate) plugged: bool,
    pub(crate) options: Options,
}

impl WorkspaceArgs {
    /// The agent (`--agent`, or the standard loading of `--pipeline`) and
    /// the options it reads, with `path`, `mode` and `delivery`'s budget.
    pub(crate) fn choose(
        &self,
        path: AssemblyPath,
        mode: Option<PromptMode>,
        delivery: Option<&DeliveryArgs>,
    ) -> Result<Chosen<'_>, CliError> {
        let (agent, plugged): (Box<dyn Agent>, bool) = match &self.agent {
            Some(name) => (Box::new(Plugged(super::find_agent(name)?)), true),
            None => {
                let pipeline = self.pipeline_name();
                super::check_pipeline(pipeline)?;
                (Box::new(Standard(pipeline)), false)
            }
        };
        if plugged && !agent.required_crates().is_empty() {
            // The crates the agent says it needs: one the linker dropped
            // would take its layers with it, silently.
            Pipeline::named(agent.pipeline())
                .and_then(|p| p.require_crates(agent.required_crates()))
                .map_err(CliError::from_error)?;
        }
        let settings = self.settings(&*agent)?;
        let default = agent.default_workspace();
        let workspace = match (&self.workspace, default) {
            (Some(dir), _) => dir.clone(),
            (None, Some(dir)) => dir,
            (None, None) => std::env::current_dir().map_err(|e| {
                CliError::failed("cannot read the current directory").with_source(e)
            })?,
        };
        if !workspace.is_dir() {
            let hint = if self.workspace.is_none() && plugged {
                " (the built-in workspace lives in the source checkout; pass --workspace DIR)"
            } else {
                ""
            };
            return Err(CliError::failed(format!(
                "workspace `{}` is not a directory{hint}",
                workspace.display()
            )));
        }
        let mut options = Options::new(workspace);
        options.fixture = self.fixture || (self.workspace.is_none() && plugged);
        options.cwd.clone_from(&self.cwd);
        options.app.clone_from(&self.app);
        if self.home.is_some() {
            options.home.clone_from(&self.home);
        }
        options.shared.clone_from(&self.shared);
        options.prompt_path.clone_from(&self.prompt_path);
        options.nested_docs = self.nested_docs;
        options.sub_agents.clone_from(&self.sub_agents);
        options.settings = settings;
        options.path = path;
        options.mode = mode;
        options.date.clone_from(&self.date);
        options.model.clone_from(&self.model);
        if let Some(delivery) = delivery {
            options.budget = delivery.budget();
            options.counter = delivery.chosen_counter();
        }
        Ok(Chosen {
            agent,
            plugged,
            options,
        })
    }

    /// The workspace the options read: `--workspace`, else the agent's
    /// built-in one, else the current directory. A file the command writes
    /// inside it is repository ground ([`prompt_checks::write::replace_file_in`]).
    pub(crate) fn workspace_dir(&self) -> Result<std::path::PathBuf, CliError> {
        Ok(self
            .choose(AssemblyPath::Cached, None, None)?
            .options
            .workspace)
    }

    /// The pipeline `--pipeline` names: as given, else the binary's
    /// default ([`Main::default_pipeline`](super::Main::default_pipeline)),
    /// else `default`.
    pub(crate) fn pipeline_name(&self) -> &str {
        resolved(self.pipeline.as_deref())
    }

    /// What to say on stderr when neither `--pipeline` nor `--agent` was
    /// given, the binary named no default, and its own crates declare
    /// pipelines (prompt-layers declares only `standard`, which with
    /// `default` is a built-in one): a script that forgot the flag learns
    /// which pipeline it got.
    pub(crate) fn unstated_pipeline(&self) -> Option<String> {
        if self.pipeline.is_some() || self.agent.is_some() || super::default_pipeline().is_some() {
            return None;
        }
        let default = super::builtin_pipeline();
        let others: Vec<&str> = prompt_core::pipeline::pipeline_names()
            .into_iter()
            .filter(|name| {
                ![
                    prompt_core::spec::DEFAULT_PIPELINE,
                    super::STANDARD_PIPELINE,
                ]
                .contains(name)
            })
            .collect();
        if others.is_empty() {
            return None;
        }
        Some(format!(
            "rendered the built-in pipeline `{default}` (no --pipeline given); this binary also has: {}. \
             Pass --pipeline NAME, or name the binary's default with \
             `prompt_cli::Main::new().default_pipeline(\"{}\").run()`",
            others.join(", "),
            others[0]
        ))
    }

    /// `--agent`, as given.
    pub(crate) fn agent_name(&self) -> Option<&str> {
        self.agent.as_deref()
    }

    /// The pipeline of `--agent`'s agent, when one of that name is registered.
    pub(crate) fn agent_pipeline(&self) -> Option<String> {
        let agent = super::find_agent(self.agent.as_deref()?).ok()?;
        Some(agent.pipeline().to_owned())
    }

    /// `--set` as a map, each key checked against the agent's.
    fn settings(&self, agent: &dyn Agent) -> Result<BTreeMap<String, String>, CliError> {
        let known = agent.settings();
        let mut map = BTreeMap::new();
        for (key, value) in &self.settings {
            if !known.iter().any(|(k, _)| k == key) {
                let list = if known.is_empty() {
                    "it takes none".to_owned()
                } else {
                    known
                        .iter()
                        .map(|(k, what)| format!("{k} ({what})"))
                        .collect::<Vec<_>>()
                        .join("; ")
                };
                return Err(CliError::usage(format!(
                    "--set {key}: agent `{}` has no setting `{key}`; {list}",
                    agent.name()
                )));
            }
            map.insert(key.clone(), value.clone());
        }
        Ok(map)
    }

    /// The pipeline and the scenarios `size` and `lint` check.
    pub(crate) fn scenarios(&self) -> Result<(Pipeline, Vec<Scenario>), CliError> {
        let chosen = self.choose(AssemblyPath::Cached, None, None)?;
        let pipeline = Pipeline::named(chosen.agent.pipeline()).map_err(CliError::from_error)?;
        // A pipeline the binary gave scenarios of its own is checked over
        // those (`Main::scenarios`); an `--agent` over its own.
        let registered = (!chosen.plugged)
            .then(|| super::registered_scenarios(chosen.agent.pipeline()))
            .flatten();
        let scenarios = match registered {
            Some(scenarios) => scenarios(&chosen.options),
            None => chosen.agent.scenarios(&chosen.options),
        }
        .map_err(CliError::from_error)?;
        Ok((pipeline, scenarios))
    }
}

/// `--pipeline` as given, else the binary's default, else the built-in one
/// ([`builtin_pipeline`](super::builtin_pipeline)).
fn resolved(given: Option<&str>) -> &str {
    match given.or(super::default_pipeline()) {
        Some(name) => name,
        None => super::builtin_pipeline(),
    }
}

/// What `cache --users` varies: the pipeline with one session and turn.
pub(crate) struct Loaded {
    pub(crate) pipeline: Pipeline,
    pub(crate) session: prompt_core::Context,
    pub(crate) turn: prompt_core::TurnContext,
}

impl Chosen<'_> {
    /// The pipeline, session and turn these options load, on the Cached path.
    pub(crate) fn load(&self) -> Result<Loaded, CliError> {
        let mut options = self.options.clone();
        options.path = AssemblyPath::Cached;
        let pipeline = Pipeline::named(self.agent.pipeline()).map_err(CliError::from_error)?;
        let session = self
            .agent
            .load_session(&options)
            .map_err(CliError::from_error)?;
        let turn = self
            .agent
            .turn(&options, &session)
            .map_err(CliError::from_error)?;
        Ok(Loaded {
            pipeline,
            session,
            turn,
        })
    }

    /// One render with these options. A path or mode the pipeline does not
    /// serve is said in the CLI's terms (`--path basic`), not the builder's.
    pub(crate) fn render(&self) -> Result<Rendered, CliError> {
        self.agent
            .render(&self.options)
            .map_err(|e| match cli_words(&*e) {
                Some(words) => CliError::failed(words),
                None => CliError::from_error(e),
            })
    }

    /// One Cached render per date, the date stated in the turn: a plug-in
    /// renders each whole; the standard loading reads the session once and
    /// renders its stable prefix once.
    pub(crate) fn render_turns(
        &self,
        dates: impl Iterator<Item = String>,
    ) -> Result<Vec<prompt_core::AssembledPrompt>, CliError> {
        if self.plugged {
            let mut options = self.options.clone();
            options.path = AssemblyPath::Cached;
            return dates
                .map(|date| {
                    options.date = Some(date);
                    self.agent
                        .render(&options)
                        .map(|rendered| rendered.prompt)
                        .map_err(CliError::from_error)
                })
                .collect();
        }
        let Loaded {
            pipeline,
            session: session_context,
            mut turn,
        } = self.load()?;
        let facts = turn.get::<RuntimeFacts>().cloned().unwrap_or_default();
        let session = prompt_core::PromptBuilder::new(&pipeline).session(session_context);
        dates
            .map(|date| {
                turn.insert(facts.clone().date(date));
                session.build_cached(&turn).map_err(CliError::from_error)
            })
            .collect()
    }
}

/// A registered agent, borrowed for one command.
struct Plugged(&'static dyn Agent);

impl Agent for Plugged {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn pipeline(&self) -> &str {
        self.0.pipeline()
    }
    fn required_crates(&self) -> &[&'static str] {
        self.0.required_crates()
    }
    fn default_workspace(&self) -> Option<PathBuf> {
        self.0.default_workspace()
    }
    fn settings(&self) -> &[(&'static str, &'static str)] {
        self.0.settings()
    }
    fn load_session(&self, options: &Options) -> Result<prompt_core::Context, super::AgentError> {
        self.0.load_session(options)
    }
    fn turn(
        &self,
        options: &Options,
        session: &prompt_core::Context,
    ) -> Result<prompt_core::TurnContext, super::AgentError> {
        self.0.turn(options, session)
    }
    fn render(&self, options: &Options) -> Result<Rendered, super::AgentError> {
        self.0.render(options)
    }
    fn scenarios(&self, options: &Options) -> Result<Vec<Scenario>, super::AgentError> {
        self.0.scenarios(options)
    }
}

/// An assembly error about the path or mode, in the words of the command
/// line: `--path basic`, `--mode compact`.
fn cli_words(error: &(dyn std::error::Error + 'static)) -> Option<String> {
    let option = |value: &str| value.to_ascii_lowercase();
    match error.downcast_ref::<prompt_core::AssemblyError>()? {
        prompt_core::AssemblyError::PathNotServed {
            pipeline,
            asked,
            serves,
        } => Some(format!(
            "pipeline `{pipeline}` serves {}, not --path {}: pass {}",
            serves
                .iter()
                .map(|p| format!("--path {}", option(p.as_str())))
                .collect::<Vec<_>>()
                .join(" or "),
            option(asked.as_str()),
            serves
                .iter()
                .map(|p| format!("`--path {}`", option(p.as_str())))
                .collect::<Vec<_>>()
                .join(" or "),
        )),
        prompt_core::AssemblyError::ModeNotServed {
            pipeline,
            asked,
            serves,
        } => Some(format!(
            "pipeline `{pipeline}` serves {}, not --mode {}: pass {}",
            serves
                .iter()
                .map(|m| format!("--mode {}", option(m.as_str())))
                .collect::<Vec<_>>()
                .join(" or "),
            option(asked.as_str()),
            serves
                .iter()
                .map(|m| format!("`--mode {}`", option(m.as_str())))
                .collect::<Vec<_>>()
                .join(" or "),
        )),
        _ => None,
    }
}

fn parse_sub_agent(arg: &str) -> Result<SubAgent, String> {
    match arg.split_once('=') {
        Some((name, description)) if !name.trim().is_empty() => {
            Ok(SubAgent::new(name.trim(), description.trim()))
        }
        _ => Err(format!("expected NAME=DESCRIPTION, got `{arg}`")),
    }
}

fn parse_setting(arg: &str) -> Result<(String, String), String> {
    match arg.split_once('=') {
        Some((key, value)) if !key.trim().is_empty() => {
            super::args::check_line(value, 256, "a value")?;
            Ok((key.trim().to_owned(), value.to_owned()))
        }
        _ => Err("expected KEY=VALUE".to_owned()),
    }
}

/// `--sub-agent` and `--set` values recorded for `prompt turn` as the
/// command line writes them (`NAME=DESCRIPTION`, `KEY=VALUE`), and read back
/// through the same parsers.
mod given {
    use serde::de::{Deserialize, Deserializer, Error};
    use serde::ser::Serializer;

    fn read<'de, D: Deserializer<'de>, T>(
        d: D,
        parse: fn(&str) -> Result<T, String>,
    ) -> Result<Vec<T>, D::Error> {
        let given = Vec::<String>::deserialize(d)?;
        given
            .iter()
            .map(|arg| parse(arg).map_err(D::Error::custom))
            .collect()
    }

    /// `--pipeline` recorded as the pipeline it resolved to, so the turn
    /// file names what rendered.
    pub(super) fn pipeline<S: Serializer>(given: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(super::resolved(given.as_deref()))
    }

    pub(super) mod sub_agents {
        use super::{Deserializer, Serializer};
        use crate::SubAgent;

        pub(crate) fn serialize<S: Serializer>(
            agents: &[SubAgent],
            s: S,
        ) -> Result<S::Ok, S::Error> {
            s.collect_seq(
                agents
                    .iter()
                    .map(|a| format!("{}={}", a.name, a.description)),
            )
        }

        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Vec<SubAgent>, D::Error> {
            super::read(d, super::super::parse_sub_agent)
        }
    }

    pub(super) mod settings {
        use super::{Deserializer, Serializer};

        pub(crate) fn serialize<S: Serializer>(
            settings: &[(String, String)],
            s: S,
        ) -> Result<S::Ok, S::Error> {
            s.collect_seq(settings.iter().map(|(key, value)| format!("{key}={value}")))
        }

        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Vec<(String, String)>, D::Error> {
            super::read(d, super::super::parse_setting)
        }
    }
}

#[cfg(test)]
mod tests {
    use prompt_core::pipeline::LayerEntry;
    use prompt_core::spec::PipelineSpec;
    use prompt_core::{
        AssemblyPath, Context, LayerInput, LayerSpec, LayerWriter, Pipeline, PromptBuilder,
        PromptMode, Render, Stability, Stable,
    };

    struct Hi;
    impl Render<Stable> for Hi {
        fn render(&self, out: &mut LayerWriter<'_>, _input: &LayerInput<'_, Stable>) {
            out.push_str("Hi.");
        }
    }

    /// The mistake: rendering a Basic-only pipeline on the default
    /// Cached path. The CLI user is told the option to pass, not the builder
    /// method to call.
    #[test]
    fn a_path_the_pipeline_does_not_serve_names_the_option_to_pass() {
        let spec = PipelineSpec::new("sub_agent")
            .paths(&[AssemblyPath::Basic])
            .modes(&[PromptMode::Full]);
        let layer = LayerSpec::new("hi", 1, Stability::Stable).pipelines(&["sub_agent"]);
        let pipeline = Pipeline::from_layers(spec, [LayerEntry::new(layer, Hi)]).unwrap();
        let error = PromptBuilder::new(&pipeline)
            .build_cached(&Context::new(), &Context::new())
            .unwrap_err();
        assert_eq!(
            super::cli_words(&error).unwrap(),
            "pipeline `sub_agent` serves --path basic, not --path cached: pass `--path basic`"
        );
        let error = PromptBuilder::new(&pipeline)
            .mode(PromptMode::Compact)
            .build_basic(&Context::new(), &Context::new())
            .unwrap_err();
        assert_eq!(
            super::cli_words(&error).unwrap(),
            "pipeline `sub_agent` serves --mode full, not --mode compact: pass `--mode full`"
        );
    }
}
