//! Host blocks (`begin`, `end`, `launch:*`, `interval`): they run on a [`MapStore`] directly;
//! what only the caller can do (print, printf, stop tracing) is handed to the caller as a
//! [`HostEffect`] at the moment the block asks for it, with the store as it is then — so
//! `print(@m); clear(@m);` prints the map's entries, as bpftrace does.

use super::step::{Env, HostOp};
use super::{Fault, TrapKind};
use crate::{
    FormatId, MapId, MapStore, PersistId, Program, SiteValue, Special, StoreError, Update,
};

/// What a host block asks of its caller, in the order it asked.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum HostEffect {
    /// `host.print @m top T div D`: print the map as the store handed with this effect
    /// holds it, its `top` largest entries (0: all), values divided by `div` (0, 1: as
    /// they are).
    Print {
        /// The map.
        map: MapId,
        /// See [`Insn::Print`](crate::Insn::Print).
        top: u64,
        /// See [`Insn::Print`](crate::Insn::Print).
        div: u64,
    },
    /// `printf N, (args…)`: format `args` with the program's format `format`.
    Printf {
        /// The format.
        format: FormatId,
        /// The argument words.
        args: Vec<u64>,
    },
    /// `host.exit`: stop tracing; the caller runs the `end` blocks next.
    Exit,
}

pub(crate) struct HostEnv<'a> {
    pub program: &'a Program,
    pub store: &'a mut MapStore,
    /// Called with each effect and the store at that moment.
    pub on_effect: &'a mut dyn FnMut(HostEffect, &MapStore),
    /// The launch a `launch:*` block runs for.
    pub launch: Option<LaunchValues>,
}

/// A launch as `launch:begin` and `launch:end` blocks see it (the runtime fills it in from
/// the launch's arguments and, for `launch:end`, its events).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LaunchValues {
    /// `kernel`: [`kernel_id`](crate::kernel_id) of the kernel's name.
    pub kernel: u64,
    /// `nctaid.x/y/z`.
    pub grid: [u32; 3],
    /// `ntid.x/y/z`.
    pub block: [u32; 3],
    /// `shared`: dynamic shared memory, bytes.
    pub shared: u64,
    /// `stream`: the stream's handle.
    pub stream: u64,
    /// `duration`: nanoseconds on the device (0 in `launch:begin`).
    pub duration: u64,
}

fn trap(kind: TrapKind) -> Fault {
    Fault::Trap(kind)
}

impl From<StoreError> for Fault {
    fn from(e: StoreError) -> Fault {
        trap(match e {
            StoreError::UnknownMap(m) => TrapKind::UnknownMap(m),
            StoreError::NotHash(_) => TrapKind::WrongMapKind,
            StoreError::KeyArity { expected, got, .. } => TrapKind::KeyArity { expected, got },
            StoreError::Aggregation(_) => TrapKind::AggregationMismatch,
        })
    }
}

impl HostEnv<'_> {
    fn effect(&mut self, effect: HostEffect) {
        (self.on_effect)(effect, self.store);
    }

    fn check_keys(&self, map: MapId, got: usize) -> Result<(), Fault> {
        let decl = self
            .program
            .map(map)
            .ok_or(trap(TrapKind::UnknownMap(map)))?;
        if decl.keys.len() != got {
            return Err(trap(TrapKind::KeyArity {
                expected: decl.keys.len(),
                got,
            }));
        }
        Ok(())
    }
}

impl Env for HostEnv<'_> {
    fn special(&mut self, s: Special, _: u32) -> Result<u64, Fault> {
        let Some(l) = &self.launch else {
            return Err(trap(TrapKind::DeviceOnly));
        };
        Ok(match s {
            Special::KernelId => l.kernel,
            Special::NctaidX => u64::from(l.grid[0]),
            Special::NctaidY => u64::from(l.grid[1]),
            Special::NctaidZ => u64::from(l.grid[2]),
            Special::NtidX => u64::from(l.block[0]),
            Special::NtidY => u64::from(l.block[1]),
            Special::NtidZ => u64::from(l.block[2]),
            Special::SharedBytes => l.shared,
            Special::Stream => l.stream,
            Special::Duration => l.duration,
            _ => return Err(trap(TrapKind::DeviceOnly)),
        })
    }

    fn site(&mut self, _: SiteValue) -> Result<u64, Fault> {
        Err(trap(TrapKind::DeviceOnly))
    }

    fn load_persist(&mut self, _: PersistId) -> Result<u64, Fault> {
        Err(trap(TrapKind::DeviceOnly))
    }

    fn store_persist(&mut self, _: PersistId, _: u64) -> Result<(), Fault> {
        Err(trap(TrapKind::DeviceOnly))
    }

    fn map_update(&mut self, map: MapId, keys: &[u64], update: Update) -> Result<(), Fault> {
        self.check_keys(map, keys.len())?;
        Ok(self.store.update(map, keys, update)?)
    }

    fn array_save(&mut self, _: MapId, _: PersistId, _: &[u64]) -> Result<(), Fault> {
        Err(trap(TrapKind::DeviceOnly))
    }

    fn ring_append(&mut self, _: MapId, _: &[u64]) -> Result<(), Fault> {
        Err(trap(TrapKind::DeviceOnly))
    }

    fn printf(&mut self, format: FormatId, args: &[u64]) -> Result<(), Fault> {
        if self.program.format(format).is_none() {
            return Err(trap(TrapKind::UnknownFormat(format)));
        }
        self.effect(HostEffect::Printf {
            format,
            args: args.to_vec(),
        });
        Ok(())
    }

    fn host(&mut self, op: HostOp) -> Result<(), Fault> {
        match op {
            HostOp::Print(map, top, div) => {
                if self.store.map(map).is_none() {
                    return Err(trap(TrapKind::UnknownMap(map)));
                }
                self.effect(HostEffect::Print { map, top, div });
            }
            HostOp::Clear(map) => self.store.clear(map)?,
            HostOp::Zero(map) => self.store.zero(map)?,
            HostOp::Delete(map, keys) => {
                self.check_keys(map, keys.len())?;
                self.store.delete(map, &keys)?;
            }
            HostOp::StopTracing => self.effect(HostEffect::Exit),
        }
        Ok(())
    }
}
