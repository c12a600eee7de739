//! Small building blocks: convolution, matmul, folded norm, activations,
//! global pooling. Tensors are `[batch, channels, height, width]`
//! (spatial) or `[batch, channels]` (pooled); sequences for the
//! transformer blocks are `[batch, points, channels]`.

use std::collections::HashMap;

use burn::module::{Module, Param};
use burn::tensor::activation;
use burn::tensor::module::conv2d;
use burn::tensor::ops::ConvOptions;
use burn::tensor::{Device, Tensor, TensorData};

use super::config::Activation;
use super::error::NetError;

/// A source of named weights, used to build a [`super::model::Net`]:
/// KataGo files, safetensors files, or random initialisation.
pub trait Weights {
    /// The weight `name` with exactly `shape` (row-major).
    fn take(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>, NetError>;
}

/// Named weights with their shapes.
#[derive(Clone, Default, Debug)]
pub struct WeightMap {
    pub tensors: HashMap<String, (Vec<usize>, Vec<f32>)>,
}

impl WeightMap {
    /// Adds (or replaces) the weight `name`.
    pub fn put(&mut self, name: &str, shape: Vec<usize>, data: Vec<f32>) {
        self.tensors.insert(name.to_string(), (shape, data));
    }
}

impl Weights for WeightMap {
    fn take(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>, NetError> {
        let (s, d) = self
            .tensors
            .remove(name)
            .ok_or_else(|| NetError::Missing(name.to_string()))?;
        if s != shape {
            return Err(NetError::Shape {
                name: name.to_string(),
                expected: shape.to_vec(),
                found: s,
            });
        }
        Ok(d)
    }
}

pub(crate) fn tensor<const D: usize>(
    w: &mut dyn Weights,
    name: &str,
    shape: [usize; D],
    device: &Device,
) -> Result<Param<Tensor<D>>, NetError> {
    let data = w.take(name, &shape)?;
    Ok(Param::from_tensor(Tensor::from_data(
        TensorData::new(data, shape),
        device,
    )))
}

/// A 2-D convolution with "same" padding and no bias.
#[derive(Module, Debug)]
pub struct Conv {
    /// `[out, in, k, k]`.
    pub weight: Param<Tensor<4>>,
}

impl Conv {
    pub fn load(
        w: &mut dyn Weights,
        name: &str,
        cin: usize,
        cout: usize,
        k: usize,
        device: &Device,
    ) -> Result<Conv, NetError> {
        Ok(Conv {
            weight: tensor(w, &format!("{name}.weight"), [cout, cin, k, k], device)?,
        })
    }

    /// `[b, in, h, w]` → `[b, out, h, w]`.
    pub fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let k = self.weight.dims()[2];
        if k == 3 && super::conv_ext::applies(&x) {
            return super::conv_ext::conv3(x, self.weight.val());
        }
        let pad = k / 2;
        conv2d(
            x,
            self.weight.val(),
            None,
            ConvOptions::new([1, 1], [pad, pad], [1, 1], 1),
        )
    }
}

/// A matrix product with optional bias: `[.., in]` → `[.., out]`.
#[derive(Module, Debug)]
pub struct Dense {
    /// `[in, out]`.
    pub weight: Param<Tensor<2>>,
    pub bias: Option<Param<Tensor<1>>>,
}

impl Dense {
    pub fn load(
        w: &mut dyn Weights,
        name: &str,
        cin: usize,
        cout: usize,
        bias: bool,
        device: &Device,
    ) -> Result<Dense, NetError> {
        Ok(Dense {
            weight: tensor(w, &format!("{name}.weight"), [cin, cout], device)?,
            bias: if bias {
                Some(tensor(w, &format!("{name}.bias"), [cout], device)?)
            } else {
                None
            },
        })
    }

    /// `[b, in]` → `[b, out]`.
    pub fn forward2(&self, x: Tensor<2>) -> Tensor<2> {
        let y = x.matmul(self.weight.val());
        match &self.bias {
            Some(b) => y + b.val().unsqueeze_dim(0),
            None => y,
        }
    }

    /// `[b, n, in]` → `[b, n, out]`.
    pub fn forward3(&self, x: Tensor<3>) -> Tensor<3> {
        let y = x.matmul(self.weight.val().unsqueeze_dim(0));
        match &self.bias {
            Some(b) => y + b.val().unsqueeze_dims(&[0, 1]),
            None => y,
        }
    }
}

/// A batch norm folded into a per-channel scale and bias.
#[derive(Module, Debug)]
pub struct Affine {
    pub scale: Param<Tensor<1>>,
    pub bias: Param<Tensor<1>>,
}

impl Affine {
    pub fn load(
        w: &mut dyn Weights,
        name: &str,
        c: usize,
        device: &Device,
    ) -> Result<Affine, NetError> {
        Ok(Affine {
            scale: tensor(w, &format!("{name}.scale"), [c], device)?,
            bias: tensor(w, &format!("{name}.bias"), [c], device)?,
        })
    }

    /// `[b, c, h, w]` → `[b, c, h, w]`.
    pub fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let s = self.scale.val().unsqueeze_dims::<4>(&[0, 2, 3]);
        let b = self.bias.val().unsqueeze_dims::<4>(&[0, 2, 3]);
        x * s + b
    }
}

/// Applies `act` elementwise.
pub fn act<const D: usize>(act: Activation, x: Tensor<D>) -> Tensor<D> {
    match act {
        Activation::Identity => x,
        Activation::Relu => activation::relu(x),
        Activation::Mish => activation::mish(x),
        Activation::Silu => activation::silu(x),
    }
}

/// KataGo's global pooling: `[b, c, h, w]` → `[b, 3c]` = mean, mean
/// scaled by board size, max.
pub fn gpool(x: Tensor<4>) -> Tensor<2> {
    let [b, c, h, w] = x.dims();
    let flat: Tensor<3> = x.reshape([b, c, h * w]);
    let mean: Tensor<2> = flat.clone().mean_dim(2).reshape([b, c]);
    let max: Tensor<2> = flat.max_dim(2).reshape([b, c]);
    let k = ((h * w) as f32).sqrt() - 14.0;
    Tensor::cat(vec![mean.clone(), mean * (k * 0.1), max], 1)
}

/// KataGo's value-head pooling: mean, mean scaled by size, mean scaled
/// by size squared.
pub fn value_pool(x: Tensor<4>) -> Tensor<2> {
    let [b, c, h, w] = x.dims();
    let flat: Tensor<3> = x.reshape([b, c, h * w]);
    let mean: Tensor<2> = flat.mean_dim(2).reshape([b, c]);
    let k = ((h * w) as f32).sqrt() - 14.0;
    Tensor::cat(
        vec![
            mean.clone(),
            mean.clone() * (k * 0.1),
            mean * (k * k * 0.01 - 0.1),
        ],
        1,
    )
}

/// Per-point RMS norm over channels with a weight: `[b, n, c]`.
pub fn rms_norm3(x: Tensor<3>, weight: Tensor<1>, eps: f32) -> Tensor<3> {
    let ms = x.clone().powf_scalar(2.0).mean_dim(2);
    let inv = (ms + eps).sqrt().recip();
    x * inv * weight.unsqueeze_dims::<3>(&[0, 1])
}
